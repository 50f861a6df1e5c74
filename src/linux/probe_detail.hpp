// Probe internals, split so every decision is unit-testable without root: gather_inputs() collects
// raw facts (file contents, errnos of harmless syscalls), assess_features() turns them into
// Features.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linux/probe.hpp"

namespace corral::probe {

// One cgroup hierarchy mounted in /proc/self/mountinfo.
struct CgroupMount {
  int version = 1;                       // 1 (fstype "cgroup") or 2 ("cgroup2")
  std::string mount_point;               // "/sys/fs/cgroup/memory"
  std::string root;                      // the mount's root inside the hierarchy, usually "/"
  std::vector<std::string> controllers;  // v1: from the super options; v2: empty (read separately)
};
std::vector<CgroupMount> parse_cgroup_mounts(std::string_view mountinfo);

// One line of /proc/self/cgroup: "4:memory:/a/b" (v1) or "0::/a/b" (v2).
struct CgroupMembership {
  std::vector<std::string> controllers;  // empty for the v2 line
  std::string path;
  bool v2 = false;
};
std::vector<CgroupMembership> parse_proc_cgroup(std::string_view text);

// The directory of our own cgroup inside `mount` ("" when we have no membership line for it).
std::string own_cgroup_dir(const CgroupMount& mount,
                           const std::vector<CgroupMembership>& memberships);

// A hierarchy as it concerns a run: what it offers and whether we can put a child cgroup in it.
struct CgroupHierarchy {
  CgroupMount mount;
  std::string own_dir;
  std::vector<std::string> controllers;  // v1: mount's; v2: <own_dir>/cgroup.controllers
  bool writable = false;                 // access(own_dir, W_OK)
  std::optional<int> child_errno;        // thorough: errno of mkdir+rmdir of a child, 0 = worked
};

// Outcome of really unsharing namespaces in a forked child (doctor, or when sysctls cannot decide).
// Errnos: 0 = worked, -1 = not attempted.
struct NsTest {
  int userns = -1;                   // unshare(CLONE_NEWUSER) + writing a self uid/gid map
  std::map<std::string, int> kinds;  // "mnt", "pid", ... -> unshare(CLONE_NEW*) inside that userns
  int overlay = -1;                  // mounting overlayfs on a private tmpfs inside it
  int mount_api = -1;  // open_tree(CLONE) + mount_setattr(RDONLY) + move_mount inside it
};
NsTest run_ns_test(bool mounts);

// The namespace kinds corral knows, as named in /proc/self/ns.
inline constexpr const char* kNamespaceKinds[] = {"mnt", "pid",    "net", "ipc",
                                                  "uts", "cgroup", "time"};

struct ProbeInputs {
  bool euid_root = false;
  std::string kernel_release;                     // uname -r, for fix texts
  std::optional<long> max_user_namespaces;        // nullopt: file missing
  std::optional<long> unprivileged_userns_clone;  // Debian/Ubuntu knob
  std::optional<long> apparmor_restrict_userns;   // Ubuntu 23.10+ knob
  std::vector<std::string> ns_present;            // entries of /proc/self/ns
  std::optional<NsTest> ns_test;
  int landlock_abi = 0;
  int landlock_errno = 0;        // why landlock_abi is 0: ENOSYS, EOPNOTSUPP, ...
  int seccomp_filter_errno = 0;  // seccomp(SET_MODE_FILTER, 0, NULL): EFAULT = supported
  std::string seccomp_actions;   // /proc/sys/kernel/seccomp/actions_avail
  std::vector<CgroupHierarchy> cgroups;
  bool overlay_in_filesystems = false;
  bool overlay_module = false;  // /lib/modules/<release>/kernel/fs/overlayfs exists
  int clone3_errno = 0;         // clone3(NULL, 0): EINVAL/EFAULT = present, ENOSYS = missing
  int pidfd_errno = 0;          // pidfd_open(getpid()): 0 = worked
  int open_tree_errno = 0;      // open_tree(-1, "", AT_EMPTY_PATH): EBADF = present
  int move_mount_errno = 0;
  int mount_setattr_errno = 0;
};

ProbeInputs gather_inputs(ProbeDepth depth);

// Whether the sysctls alone decide that this user can create user namespaces; nullopt when only
// a real unshare can tell (AppArmor's restriction lets unshare succeed but strips capabilities).
std::optional<bool> userns_from_sysctls(const ProbeInputs& in);

Features assess_features(const ProbeInputs& in);

// "ENOSYS", "EPERM", ... ("errno 1234" when unknown): stable text for details and tests.
std::string errno_name(int err);

}  // namespace corral::probe
