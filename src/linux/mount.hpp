// Child-side mount primitives. Each returns 0 or an errno value; none allocates memory, because
// they run in a child created by clone3 where another thread's malloc lock may be held.
#pragma once

#include <sys/types.h>

namespace corral::mnt {

// Stops mount events from propagating back to the host (MS_REC|MS_PRIVATE on /).
int make_private();

// A detached copy of the tree at `path` (open_tree OPEN_TREE_CLONE, recursive). Returns fd >= 0
// or -errno.
int clone_tree(const char* path);

// Sets/clears MOUNT_ATTR_* on every mount of a detached or attached tree.
int set_tree_attrs(int tree_fd, unsigned long long set, unsigned long long clear);

// Attaches a detached tree at `target`.
int attach_tree(int tree_fd, const char* target);

int mount_tmpfs(const char* target, mode_t mode, unsigned long flags, const char* extra_opts);
int mount_proc(const char* target);
int mount_sysfs(const char* target);
int mount_devpts(const char* target);
int bind(const char* source, const char* target);  // non-recursive MS_BIND
int remount_readonly(const char* target);           // one mount, keeps its other flags

// Creates `path` (and missing parents) as a directory, or as an empty file when !is_dir, so it
// can serve as a mount point. Existing paths are left as they are.
int ensure_mountpoint(const char* path, bool is_dir);

// Makes `new_root` (a mount point) the root and detaches the old one.
int pivot_into(const char* new_root);

}  // namespace corral::mnt
