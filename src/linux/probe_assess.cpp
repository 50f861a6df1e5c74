// Turns raw probe inputs into Features: one FeatureCheck per feature, with a severity that says
// whether `corral run` can enforce without it, and a concrete fix whenever it is not ok.
#include <algorithm>
#include <cerrno>
#include <string>

#include "linux/probe_detail.hpp"

namespace corral::probe {
namespace {

constexpr int kLandlockWanted = 7;
const char* const kLimitControllers[] = {"memory", "pids", "cpu"};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string join(const std::vector<std::string>& v, const char* sep = ",") {
  std::string out;
  for (const auto& s : v) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

FeatureCheck check(std::string name, Severity sev, std::string detail, std::string fix = "") {
  return FeatureCheck{std::move(name), sev, std::move(detail),
                      sev == Severity::ok ? std::string() : std::move(fix)};
}

// A real test's errno for a namespace kind, or -1 when none was run.
int tested(const ProbeInputs& in, const std::string& kind) {
  if (!in.ns_test) return -1;
  auto it = in.ns_test->kinds.find(kind);
  return it == in.ns_test->kinds.end() ? -1 : it->second;
}

const char* kAppArmorFix =
    "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or install an AppArmor profile for "
    "corral that has the 'userns,' rule";

FeatureCheck assess_userns(const ProbeInputs& in) {
  const char* name = "userns";
  if (in.ns_present.empty())
    return check(name, Severity::error, "cannot list /proc/self/ns",
                 "mount procfs at /proc (mount -t proc proc /proc)");
  if (!contains(in.ns_present, "user"))
    return check(name, Severity::error, "kernel has no user namespaces",
                 "boot a kernel built with CONFIG_USER_NS=y");
  if (in.max_user_namespaces && *in.max_user_namespaces <= 0)
    return check(name, Severity::error, "disabled: user.max_user_namespaces = 0",
                 "sysctl -w user.max_user_namespaces=15000");
  if (!in.euid_root && in.unprivileged_userns_clone && *in.unprivileged_userns_clone == 0)
    return check(name, Severity::error,
                 "disabled for non-root users: kernel.unprivileged_userns_clone = 0",
                 "sysctl -w kernel.unprivileged_userns_clone=1 (or run corral as root)");
  bool apparmor = !in.euid_root && in.apparmor_restrict_userns && *in.apparmor_restrict_userns != 0;
  if (in.ns_test) {
    int err = in.ns_test->userns;
    if (err != 0) {
      std::string fix = err == ENOSPC ? "sysctl -w user.max_user_namespaces=15000 (limit reached)"
                        : err == EUSERS
                            ? "run corral fewer user namespaces deep (nesting limit is 32)"
                            : "allow unshare(CLONE_NEWUSER): a seccomp profile or LSM (e.g. a "
                              "container's default profile) denies it; run corral outside it or "
                              "relax that profile";
      std::string detail = err == ECHILD
                               ? "the unshare test child died before reporting (killed by a "
                                 "seccomp filter?)"
                               : "unshare(CLONE_NEWUSER) failed: " + errno_name(err);
      return check(name, Severity::error, detail, apparmor ? kAppArmorFix : fix);
    }
    // AppArmor's restriction lets the unshare succeed and strips capabilities inside.
    int mnt = tested(in, "mnt");
    if (apparmor && mnt > 0)
      return check(name, Severity::error,
                   "AppArmor strips capabilities in unprivileged user namespaces (unshare of a "
                   "mount namespace inside: " +
                       errno_name(mnt) + ")",
                   kAppArmorFix);
    return check(name, Severity::ok, "unshare(CLONE_NEWUSER) works");
  }
  if (apparmor)
    return check(name, Severity::error,
                 "AppArmor restricts unprivileged user namespaces "
                 "(kernel.apparmor_restrict_unprivileged_userns = 1)",
                 kAppArmorFix);
  std::string detail = "available";
  if (in.max_user_namespaces)
    detail += " (user.max_user_namespaces = " + std::to_string(*in.max_user_namespaces) + ")";
  return check(name, Severity::ok, detail);
}

struct NsKind {
  const char* kind;   // in /proc/self/ns
  const char* check;  // check name
  const char* flag;   // for messages
  const char* fix;
  Severity if_missing;
  bool Features::*field;
};
const NsKind kNsKinds[] = {
    {"mnt", "ns.mount", "CLONE_NEWNS", "boot a kernel with namespace support (CONFIG_NAMESPACES=y)",
     Severity::error, &Features::ns_mount},
    {"pid", "ns.pid", "CLONE_NEWPID", "boot a kernel built with CONFIG_PID_NS=y", Severity::error,
     &Features::ns_pid},
    {"net", "ns.net", "CLONE_NEWNET", "boot a kernel built with CONFIG_NET_NS=y", Severity::error,
     &Features::ns_net},
    {"ipc", "ns.ipc", "CLONE_NEWIPC", "boot a kernel built with CONFIG_IPC_NS=y", Severity::error,
     &Features::ns_ipc},
    {"uts", "ns.uts", "CLONE_NEWUTS", "boot a kernel built with CONFIG_UTS_NS=y", Severity::error,
     &Features::ns_uts},
    {"cgroup", "ns.cgroup", "CLONE_NEWCGROUP",
     "upgrade to Linux >= 4.6 built with CONFIG_CGROUPS=y", Severity::error, &Features::ns_cgroup},
    // corral run does not need a time namespace yet; missing it only loses clock virtualization.
    {"time", "ns.time", "CLONE_NEWTIME", "upgrade to Linux >= 5.6 built with CONFIG_TIME_NS=y",
     Severity::warning, &Features::ns_time},
};

FeatureCheck assess_ns(const ProbeInputs& in, const NsKind& k, Features& f) {
  if (!contains(in.ns_present, k.kind)) {
    f.*k.field = false;
    return check(k.check, k.if_missing, std::string("kernel has no ") + k.kind + " namespaces",
                 k.fix);
  }
  int err = tested(in, k.kind);
  if (err > 0) {
    f.*k.field = false;
    return check(k.check, k.if_missing,
                 std::string("unshare(") + k.flag + ") failed: " + errno_name(err),
                 "allow unshare(" + std::string(k.flag) +
                     "): a seccomp profile or LSM denies it; run corral outside it or relax it");
  }
  f.*k.field = true;
  return check(k.check, Severity::ok,
               err == 0 ? std::string("unshare(") + k.flag + ") works"
                        : "supported (/proc/self/ns/" + std::string(k.kind) + ")");
}

FeatureCheck assess_landlock(const ProbeInputs& in) {
  const char* name = "landlock";
  if (in.landlock_abi <= 0) {
    if (in.landlock_errno == EOPNOTSUPP)
      return check(name, Severity::warning,
                   "degraded: Landlock is built in but disabled at boot; filesystem rules are "
                   "enforced by mounts only",
                   "add landlock to the lsm= kernel parameter (e.g. "
                   "lsm=landlock,lockdown,yama,integrity,apparmor,bpf) and reboot");
    return check(name, Severity::warning,
                 "degraded: no Landlock (" + errno_name(in.landlock_errno) +
                     "); filesystem rules are enforced by mounts only",
                 "boot a kernel with CONFIG_SECURITY_LANDLOCK=y and lsm=landlock,... (Linux >= "
                 "6.15 for ABI 7)");
  }
  std::string detail = "ABI " + std::to_string(in.landlock_abi);
  if (in.landlock_abi >= kLandlockWanted) return check(name, Severity::ok, detail);
  // What each later ABI adds, so the user sees exactly what is not enforced.
  static const char* const kAdds[] = {"",
                                      "",  // ABI 0, 1
                                      "cross-directory rename/link control (ABI 2)",
                                      "truncate control (ABI 3)",
                                      "TCP bind/connect rules (ABI 4)",
                                      "device ioctl control (ABI 5)",
                                      "signal and abstract-socket scoping (ABI 6)",
                                      "denial audit logging (ABI 7)"};
  std::vector<std::string> missing;
  for (int abi = std::max(in.landlock_abi + 1, 2); abi <= kLandlockWanted; ++abi)
    missing.emplace_back(kAdds[abi]);
  return check(name, Severity::warning, "degraded: " + detail + " lacks " + join(missing, ", "),
               "upgrade to Linux >= 6.15 for Landlock ABI 7");
}

void assess_seccomp(const ProbeInputs& in, Features& f) {
  bool kernel_has_filters = !in.seccomp_actions.empty();
  f.seccomp_filter = in.seccomp_filter_errno == EFAULT;
  if (f.seccomp_filter)
    f.checks.push_back(check("seccomp.filter", Severity::ok,
                             "supported (seccomp(SECCOMP_SET_MODE_FILTER) answers)"));
  else if (kernel_has_filters)
    f.checks.push_back(check("seccomp.filter", Severity::error,
                             "the kernel has seccomp filters but seccomp() fails with " +
                                 errno_name(in.seccomp_filter_errno),
                             "allow the seccomp() syscall in the seccomp profile or LSM that "
                             "confines corral (e.g. run outside the container)"));
  else
    f.checks.push_back(
        check("seccomp.filter", Severity::error,
              "no seccomp filter support (" + errno_name(in.seccomp_filter_errno) + ")",
              "boot a kernel built with CONFIG_SECCOMP=y and CONFIG_SECCOMP_FILTER=y"));
  std::vector<std::string> actions;
  size_t start = 0;
  const std::string& a = in.seccomp_actions;
  while (start < a.size()) {
    size_t end = a.find_first_of(" \n", start);
    if (end == std::string::npos) end = a.size();
    if (end > start) actions.push_back(a.substr(start, end - start));
    start = end + 1;
  }
  f.seccomp_user_notif = f.seccomp_filter && contains(actions, "user_notif");
  if (f.seccomp_user_notif)
    f.checks.push_back(check("seccomp.user_notif", Severity::ok, "actions: " + join(actions, " ")));
  else
    f.checks.push_back(check("seccomp.user_notif", Severity::warning,
                             "degraded: no SECCOMP_RET_USER_NOTIF (actions: " +
                                 (actions.empty() ? std::string("none") : join(actions, " ")) +
                                 "); denied syscalls fail but are not reported as they happen",
                             "upgrade to Linux >= 5.5 with CONFIG_SECCOMP_FILTER=y"));
}

void assess_cgroups(const ProbeInputs& in, Features& f) {
  const char* name = "cgroup";
  std::vector<std::string> mounted, unwritable, failed;  // "memory(v1)" style notes
  std::string v2_mount;
  for (const CgroupHierarchy& h : in.cgroups) {
    bool usable = h.writable && (!h.child_errno || *h.child_errno == 0);
    if (h.mount.version == 2 && v2_mount.empty()) v2_mount = h.mount.mount_point;
    for (const std::string& c : h.controllers) {
      bool wanted = h.mount.version == 2 ||
                    std::find(std::begin(kLimitControllers), std::end(kLimitControllers), c) !=
                        std::end(kLimitControllers);
      if (!wanted) continue;
      std::string note = c + " (" + h.own_dir + ")";
      if (!h.writable) {
        unwritable.push_back(note);
        continue;
      }
      if (!usable) {
        failed.push_back(note + ": " + errno_name(*h.child_errno));
        continue;
      }
      auto& list = h.mount.version == 2 ? f.cgroup_v2_controllers : f.cgroup_v1_controllers;
      if (!contains(list, c)) list.push_back(c);
    }
  }
  std::vector<std::string> have, lacking;
  for (const char* c : kLimitControllers) {
    if (contains(f.cgroup_v2_controllers, c)) {
      f.cgroup_v2 = true;
      have.push_back(std::string(c) + ":v2");
    } else if (contains(f.cgroup_v1_controllers, c)) {
      have.push_back(std::string(c) + ":v1");
    } else {
      lacking.push_back(c);
    }
  }
  std::string detail = have.empty() ? "no usable controllers" : join(have, " ");
  if (!v2_mount.empty())
    detail +=
        "; v2 at " + v2_mount + " offers " +
        (f.cgroup_v2_controllers.empty() ? std::string("none") : join(f.cgroup_v2_controllers));
  if (lacking.empty()) {
    f.checks.push_back(check(name, Severity::ok, detail));
    return;
  }
  detail = "degraded: " + join(lacking) + " limits unavailable; " + detail;
  std::string fix;
  if (!failed.empty()) {
    detail += "; cannot create a child cgroup: " + join(failed, ", ");
    fix = "make our cgroup writable, or run corral as root";
  } else if (!unwritable.empty()) {
    detail += "; not writable: " + join(unwritable, ", ");
    fix =
        "run corral as root, or in a delegated cgroup: systemd-run --user --scope -p "
        "Delegate=yes corral ...";
  } else if (in.cgroups.empty()) {
    fix =
        "mount cgroup2 (mount -t cgroup2 none /sys/fs/cgroup) or boot with "
        "systemd.unified_cgroup_hierarchy=1";
  } else {
    fix = "enable the controller in the cgroup2 parent (echo +" + lacking.front() +
          " > <parent>/cgroup.subtree_control) or mount its v1 hierarchy (mount -t cgroup -o " +
          lacking.front() + " cgroup /sys/fs/cgroup/" + lacking.front() + ")";
  }
  f.checks.push_back(check(name, Severity::warning, detail, fix));
}

FeatureCheck assess_overlay(const ProbeInputs& in, Features& f) {
  const char* name = "overlayfs";
  f.overlayfs = in.overlay_in_filesystems || in.overlay_module;
  if (!f.overlayfs)
    return check(name, Severity::warning,
                 "degraded: no overlay filesystem; copy-on-write workspaces unavailable",
                 "modprobe overlay (kernel needs CONFIG_OVERLAY_FS)");
  if (in.ns_test && in.ns_test->overlay > 0) {
    f.overlayfs = false;
    return check(name, Severity::warning,
                 "degraded: mounting overlayfs inside a user namespace failed (" +
                     errno_name(in.ns_test->overlay) + "); copy-on-write workspaces unavailable",
                 "upgrade to Linux >= 5.11 (unprivileged overlayfs) or run corral as root");
  }
  if (in.ns_test && in.ns_test->overlay == 0)
    return check(name, Severity::ok, "mounts inside a user namespace");
  return check(
      name, Severity::ok,
      in.overlay_in_filesystems ? "in /proc/filesystems" : "module (loads on first mount)");
}

FeatureCheck assess_syscall(const char* name, int err, bool present, const char* what,
                            const char* fix, bool& field) {
  field = present;
  if (present) return check(name, Severity::ok, std::string(what) + " present");
  return check(name, Severity::error, std::string(what) + " unavailable: " + errno_name(err), fix);
}

FeatureCheck assess_mount_api(const ProbeInputs& in, Features& f) {
  const char* name = "mount_api";
  std::vector<std::string> missing;
  if (in.open_tree_errno == ENOSYS) missing.push_back("open_tree");
  if (in.move_mount_errno == ENOSYS) missing.push_back("move_mount");
  if (in.mount_setattr_errno == ENOSYS) missing.push_back("mount_setattr");
  f.mount_api = missing.empty();
  if (!missing.empty())
    return check(name, Severity::error, "missing: " + join(missing, ", ") + " (ENOSYS)",
                 "upgrade to Linux >= 5.12 (mount_setattr); inside a container, allow these "
                 "syscalls in its seccomp profile");
  if (in.ns_test && in.ns_test->mount_api > 0) {
    f.mount_api = false;
    return check(name, Severity::error,
                 "open_tree/mount_setattr/move_mount inside a user namespace failed: " +
                     errno_name(in.ns_test->mount_api),
                 "upgrade to Linux >= 5.12, or relax the LSM policy that denies these mounts");
  }
  return check(name, Severity::ok,
               in.ns_test && in.ns_test->mount_api == 0
                   ? "open_tree, mount_setattr, move_mount work inside a user namespace"
                   : "open_tree, move_mount, mount_setattr present");
}

}  // namespace

std::optional<bool> userns_from_sysctls(const ProbeInputs& in) {
  if (!contains(in.ns_present, "user")) return false;
  if (in.max_user_namespaces && *in.max_user_namespaces <= 0) return false;
  if (in.euid_root) return true;
  if (in.unprivileged_userns_clone && *in.unprivileged_userns_clone == 0) return false;
  if (in.apparmor_restrict_userns && *in.apparmor_restrict_userns != 0) return std::nullopt;
  return true;
}

Features assess_features(const ProbeInputs& in) {
  Features f;
  f.checks.push_back(assess_userns(in));
  f.userns = f.checks.back().severity == Severity::ok;
  for (const NsKind& k : kNsKinds) f.checks.push_back(assess_ns(in, k, f));
  f.landlock_abi = std::max(in.landlock_abi, 0);
  f.checks.push_back(assess_landlock(in));
  assess_seccomp(in, f);
  assess_cgroups(in, f);
  f.checks.push_back(assess_overlay(in, f));
  f.checks.push_back(assess_syscall("clone3", in.clone3_errno, in.clone3_errno != ENOSYS, "clone3",
                                    "upgrade to Linux >= 5.3; inside a container, allow clone3 in "
                                    "its seccomp profile (some return ENOSYS for it)",
                                    f.clone3));
  f.checks.push_back(assess_syscall("pidfd", in.pidfd_errno, in.pidfd_errno == 0, "pidfd_open",
                                    "upgrade to Linux >= 5.3 (pidfd_open)", f.pidfd));
  f.checks.push_back(assess_mount_api(in, f));
  return f;
}

}  // namespace corral::probe
