// Mount wrappers over mount(2) and the new mount API (open_tree, move_mount, mount_setattr).
#include "linux/mount.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

namespace corral::mnt {
namespace {

int err_or_zero(int r) { return r == 0 ? 0 : errno; }

}  // namespace

int make_private() { return err_or_zero(mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr)); }

int clone_tree(const char* path) {
  int fd = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
  return fd >= 0 ? fd : -errno;
}

int set_tree_attrs(int tree_fd, unsigned long long set, unsigned long long clear) {
  mount_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.attr_set = set;
  attr.attr_clr = clear;
  return err_or_zero(mount_setattr(tree_fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr));
}

int attach_tree(int tree_fd, const char* target) {
  return err_or_zero(move_mount(tree_fd, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH));
}

int mount_tmpfs(const char* target, mode_t mode, unsigned long flags, const char* extra_opts) {
  char opts[128];
  int n = extra_opts && *extra_opts
              ? snprintf(opts, sizeof opts, "mode=%04o,%s", static_cast<unsigned>(mode), extra_opts)
              : snprintf(opts, sizeof opts, "mode=%04o", static_cast<unsigned>(mode));
  if (n < 0 || static_cast<size_t>(n) >= sizeof opts) return EINVAL;
  return err_or_zero(mount("tmpfs", target, "tmpfs", flags, opts));
}

int mount_proc(const char* target) {
  return err_or_zero(mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr));
}

int mount_sysfs(const char* target) {
  return err_or_zero(
      mount("sysfs", target, "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, nullptr));
}

int mount_devpts(const char* target) {
  return err_or_zero(mount("devpts", target, "devpts", MS_NOSUID | MS_NOEXEC,
                           "newinstance,ptmxmode=0666,mode=620"));
}

int bind(const char* source, const char* target) {
  return err_or_zero(mount(source, target, nullptr, MS_BIND, nullptr));
}

int remount_readonly(const char* target) {
  // A bind remount replaces the per-mount flags; flags locked by a more privileged namespace
  // (nosuid, nodev, noexec) must be repeated or the kernel refuses with EPERM, so read them.
  struct statvfs sv;
  if (statvfs(target, &sv) != 0) return errno;
  unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;
  if (sv.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (sv.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (sv.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (sv.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (sv.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (sv.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  return err_or_zero(mount(nullptr, target, nullptr, flags, nullptr));
}

int ensure_mountpoint(const char* path, bool is_dir) {
  struct stat st;
  if (stat(path, &st) == 0) return 0;
  char buf[PATH_MAX];
  size_t len = strlen(path);
  if (len >= sizeof buf) return ENAMETOOLONG;
  memcpy(buf, path, len + 1);
  // Create parents one component at a time.
  for (size_t i = 1; i < len; ++i) {
    if (buf[i] != '/') continue;
    buf[i] = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return errno;
    buf[i] = '/';
  }
  if (is_dir) {
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return errno;
    return 0;
  }
  int fd = open(buf, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return errno;
  close(fd);
  return 0;
}

int pivot_into(const char* new_root) {
  if (chdir(new_root) != 0) return errno;
  // pivot_root(".", ".") stacks the old root on top of the new one; detaching "." then drops it
  // without needing a directory to park it in.
  if (syscall(SYS_pivot_root, ".", ".") != 0) return errno;
  if (umount2(".", MNT_DETACH) != 0) return errno;
  if (chdir("/") != 0) return errno;
  return 0;
}

}  // namespace corral::mnt
