// Gathers the raw facts the probe decides from: sysctl files, /proc/self/{ns,mountinfo,cgroup},
// and syscalls called with arguments that make them fail harmlessly (ENOSYS = missing).
#include <dirent.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "linux/probe_detail.hpp"

// Debian 12's headers may predate these; values are the kernel ABI and never change.
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef SECCOMP_SET_MODE_FILTER
#define SECCOMP_SET_MODE_FILTER 1
#endif
#ifndef SECCOMP_GET_ACTION_AVAIL
#define SECCOMP_GET_ACTION_AVAIL 2
#endif

namespace corral::probe {
namespace {

// Small /proc and /sys files: one open + read, no iostreams (they cost more than the read).
bool read_small_file(const char* path, std::string& out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out.clear();
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return true;
}

std::optional<long> read_long(const char* path) {
  std::string text;
  if (!read_small_file(path, text)) return std::nullopt;
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str()) return std::nullopt;
  return v;
}

int errno_of(long rc) { return rc < 0 ? errno : 0; }

std::vector<std::string> list_namespaces() {
  std::vector<std::string> kinds;
  DIR* d = opendir("/proc/self/ns");
  if (d == nullptr) return kinds;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') kinds.emplace_back(e->d_name);
  }
  closedir(d);
  return kinds;
}

void probe_landlock(ProbeInputs& in) {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 0) {
    in.landlock_abi = 0;
    in.landlock_errno = errno;
  } else {
    in.landlock_abi = static_cast<int>(abi);
  }
}

void probe_seccomp(ProbeInputs& in) {
  // A NULL program: the kernel copies the (missing) program before any other check, so EFAULT
  // proves filter support without installing anything; EINVAL means no CONFIG_SECCOMP_FILTER.
  in.seccomp_filter_errno = errno_of(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, nullptr));
  if (read_small_file("/proc/sys/kernel/seccomp/actions_avail", in.seccomp_actions)) return;
  // No sysctl file (e.g. /proc/sys masked): ask the kernel action by action.
  struct Action {
    const char* name;
    std::uint32_t value;
  };
  static constexpr Action kActions[] = {{"kill_process", 0x80000000U}, {"kill_thread", 0},
                                        {"trap", 0x00030000U},         {"errno", 0x00050000U},
                                        {"user_notif", 0x7fc00000U},   {"trace", 0x7ff00000U},
                                        {"log", 0x7ffc0000U},          {"allow", 0x7fff0000U}};
  in.seccomp_actions.clear();
  for (const Action& a : kActions) {
    std::uint32_t v = a.value;
    if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &v) == 0) {
      if (!in.seccomp_actions.empty()) in.seccomp_actions += ' ';
      in.seccomp_actions += a.name;
    }
  }
}

void probe_cgroups(ProbeInputs& in, ProbeDepth depth) {
  std::string mountinfo, self_cgroup;
  if (!read_small_file("/proc/self/mountinfo", mountinfo)) return;
  read_small_file("/proc/self/cgroup", self_cgroup);
  std::vector<CgroupMembership> memberships = parse_proc_cgroup(self_cgroup);
  for (CgroupMount& m : parse_cgroup_mounts(mountinfo)) {
    // v1 hierarchies without a controller corral limits with (devices, freezer, name=systemd)
    // are skipped: nothing to report, and each would cost a syscall on every run.
    if (m.version == 1 &&
        std::none_of(m.controllers.begin(), m.controllers.end(), [](const std::string& c) {
          return c == "memory" || c == "pids" || c == "cpu";
        }))
      continue;
    CgroupHierarchy h;
    h.own_dir = own_cgroup_dir(m, memberships);
    if (h.own_dir.empty()) continue;  // not our hierarchy (e.g. a mount we are not a member of)
    if (m.version == 1) {
      h.controllers = m.controllers;
    } else {
      // What our own cgroup may hand to children; the root's list would overstate it.
      std::string text;
      read_small_file((h.own_dir + "/cgroup.controllers").c_str(), text);
      size_t start = 0;
      while (start < text.size()) {
        size_t end = text.find_first_of(" \n", start);
        if (end == std::string::npos) end = text.size();
        if (end > start) h.controllers.push_back(text.substr(start, end - start));
        start = end + 1;
      }
    }
    h.writable = access(h.own_dir.c_str(), W_OK) == 0;
    if (depth == ProbeDepth::thorough && h.writable) {
      std::string child = h.own_dir + "/corral-doctor-" + std::to_string(getpid());
      h.child_errno = mkdir(child.c_str(), 0755) == 0 ? 0 : errno;
      if (*h.child_errno == 0) rmdir(child.c_str());
    }
    h.mount = std::move(m);
    in.cgroups.push_back(std::move(h));
  }
}

void probe_overlay(ProbeInputs& in) {
  std::string filesystems;
  read_small_file("/proc/filesystems", filesystems);
  in.overlay_in_filesystems = filesystems.find("\toverlay\n") != std::string::npos;
  if (in.overlay_in_filesystems) return;
  struct stat st;
  std::string dir = "/lib/modules/" + in.kernel_release + "/kernel/fs/overlayfs";
  in.overlay_module = stat(dir.c_str(), &st) == 0;
}

void probe_syscalls(ProbeInputs& in) {
  // clone3 with a NULL, zero-size argument fails its size check (EINVAL) before cloning.
  in.clone3_errno = errno_of(syscall(SYS_clone3, nullptr, 0));
  long fd = syscall(SYS_pidfd_open, getpid(), 0);
  in.pidfd_errno = errno_of(fd);
  if (fd >= 0) close(static_cast<int>(fd));
  // Invalid fds: each call fails (EBADF, EINVAL or EPERM) without touching a mount.
  long tree = syscall(SYS_open_tree, -1, "", AT_EMPTY_PATH);
  in.open_tree_errno = errno_of(tree);
  if (tree >= 0) close(static_cast<int>(tree));
  in.move_mount_errno = errno_of(syscall(SYS_move_mount, -1, "", -1, "", 0));
  in.mount_setattr_errno = errno_of(syscall(SYS_mount_setattr, -1, "", 0, nullptr, 0));
}

}  // namespace

ProbeInputs gather_inputs(ProbeDepth depth) {
  ProbeInputs in;
  in.euid_root = geteuid() == 0;
  struct utsname u;
  if (uname(&u) == 0) in.kernel_release = u.release;
  in.max_user_namespaces = read_long("/proc/sys/user/max_user_namespaces");
  in.unprivileged_userns_clone = read_long("/proc/sys/kernel/unprivileged_userns_clone");
  in.apparmor_restrict_userns = read_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  in.ns_present = list_namespaces();
  probe_landlock(in);
  probe_seccomp(in);
  probe_cgroups(in, depth);
  probe_overlay(in);
  probe_syscalls(in);
  // Doctor always tests for real; a run forks only when the sysctls leave userns undecided.
  if (depth == ProbeDepth::thorough)
    in.ns_test = run_ns_test(/*mounts=*/true);
  else if (!userns_from_sysctls(in).has_value())
    in.ns_test = run_ns_test(/*mounts=*/false);
  return in;
}

}  // namespace corral::probe

namespace corral {

Features probe_features() { return probe_features(ProbeDepth::quick); }

Features probe_features(ProbeDepth depth) {
  return probe::assess_features(probe::gather_inputs(depth));
}

}  // namespace corral
