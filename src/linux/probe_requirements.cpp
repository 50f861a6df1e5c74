// check_requirements: what a policy needs of the kernel versus what the probe found. Errors make
// `corral run` refuse (exit 125) rather than pretend to enforce; warnings say what is degraded.
#include <algorithm>
#include <string>

#include "linux/probe.hpp"

namespace corral {
namespace {

const FeatureCheck* find_check(const Features& f, const std::string& name) {
  for (const FeatureCheck& c : f.checks)
    if (c.name == name) return &c;
  return nullptr;
}

// "<what>: <detail>; fix: <fix>", taking detail and fix from the probe's check when it has one
// (Features built by hand, as in tests, may have no checks).
std::string describe(const Features& f, const std::string& check, const std::string& what,
                     const std::string& fallback_fix) {
  std::string msg = what;
  const FeatureCheck* c = find_check(f, check);
  if (c != nullptr && !c->detail.empty()) msg += ": " + c->detail;
  std::string fix = c != nullptr && !c->fix.empty() ? c->fix : fallback_fix;
  if (!fix.empty()) msg += "; fix: " + fix;
  return msg;
}

bool has(const std::vector<std::string>& v, const char* s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

Requirements check_requirements(const Features& f, const EffectivePolicy& policy) {
  Requirements r;
  struct Needed {
    bool present;
    const char* check;
    const char* what;
    const char* fix;
  };
  // Everything every run uses, in the order the enforcer uses it.
  const Needed needed[] = {
      {f.userns, "userns", "user namespaces unavailable",
       "sysctl -w user.max_user_namespaces=15000"},
      {f.ns_mount, "ns.mount", "mount namespaces unavailable",
       "boot a kernel with CONFIG_NAMESPACES=y"},
      {f.ns_pid, "ns.pid", "pid namespaces unavailable", "boot a kernel with CONFIG_PID_NS=y"},
      {f.ns_net, "ns.net", "network namespaces unavailable", "boot a kernel with CONFIG_NET_NS=y"},
      {f.ns_ipc, "ns.ipc", "ipc namespaces unavailable", "boot a kernel with CONFIG_IPC_NS=y"},
      {f.ns_uts, "ns.uts", "uts namespaces unavailable", "boot a kernel with CONFIG_UTS_NS=y"},
      {f.ns_cgroup, "ns.cgroup", "cgroup namespaces unavailable", "upgrade to Linux >= 4.6"},
      {f.mount_api, "mount_api", "mount API (open_tree/move_mount/mount_setattr) unavailable",
       "upgrade to Linux >= 5.12"},
      {f.clone3, "clone3", "clone3 unavailable", "upgrade to Linux >= 5.3"},
      {f.pidfd, "pidfd", "pidfd_open unavailable", "upgrade to Linux >= 5.3"},
      {f.seccomp_filter, "seccomp.filter", "seccomp filters unavailable",
       "boot a kernel with CONFIG_SECCOMP_FILTER=y"},
  };
  for (const Needed& n : needed)
    if (!n.present) r.errors.push_back(describe(f, n.check, n.what, n.fix));

  // A limit the policy sets must be enforced by a cgroup controller, v1 or v2; else refuse.
  struct Limit {
    bool set;
    const char* key;
    const char* controller;
  };
  const Limit limits[] = {
      {policy.limits.memory_bytes.has_value(), "limits.memory", "memory"},
      {policy.limits.pids.has_value(), "limits.pids", "pids"},
      {policy.limits.cpus.has_value(), "limits.cpus", "cpu"},
  };
  for (const Limit& l : limits) {
    if (!l.set || has(f.cgroup_v1_controllers, l.controller) ||
        has(f.cgroup_v2_controllers, l.controller))
      continue;
    std::string what = std::string(l.key) + " is set but no usable " + l.controller +
                       " cgroup controller (v1 or v2) is available";
    r.errors.push_back(describe(f, "cgroup", what,
                                std::string("enable the ") + l.controller +
                                    " controller (cgroup2 subtree_control or a v1 mount) and "
                                    "make our cgroup writable, or drop " +
                                    l.key));
  }

  if (f.landlock_abi < 7)
    r.warnings.push_back(describe(f, "landlock",
                                  f.landlock_abi == 0
                                      ? "Landlock unavailable"
                                      : "Landlock ABI " + std::to_string(f.landlock_abi) + " < 7",
                                  "upgrade to Linux >= 6.15 for Landlock ABI 7"));
  if (f.seccomp_filter && !f.seccomp_user_notif)
    r.warnings.push_back(describe(f, "seccomp.user_notif", "seccomp user notification unavailable",
                                  "upgrade to Linux >= 5.5"));
  return r;
}

}  // namespace corral
