// Probes of every kernel feature corral uses, and what a policy needs of them.
#pragma once

#include <string>
#include <vector>

#include "policy/policy.hpp"

namespace corral {

enum class Severity { ok, warning, error };

struct FeatureCheck {
  std::string name;     // stable id: "userns", "ns.mount", "landlock", "seccomp.user_notif", ...
  Severity severity = Severity::ok;
  std::string detail;   // what was found ("ABI 7", "v1: memory,pids,cpu")
  std::string fix;      // what to do when not ok; empty when ok
};

struct Features {
  bool userns = false;
  bool ns_mount = false, ns_pid = false, ns_net = false, ns_ipc = false, ns_uts = false,
       ns_cgroup = false, ns_time = false;
  int landlock_abi = 0;          // 0 = unavailable
  bool seccomp_filter = false;
  bool seccomp_user_notif = false;
  bool cgroup_v2 = false;        // a cgroup2 hierarchy with controllers we can use
  // Usable = mounted and our own cgroup there is writable (we can create a child for the run).
  std::vector<std::string> cgroup_v1_controllers;   // usable v1 controllers among memory,pids,cpu
  std::vector<std::string> cgroup_v2_controllers;   // usable v2 controllers (all of them)
  bool overlayfs = false;
  bool clone3 = false;
  bool pidfd = false;
  bool mount_api = false;        // open_tree / move_mount / mount_setattr
  std::vector<FeatureCheck> checks;  // one per feature, for `corral doctor`
};

// quick: files and harmless syscalls only (forks only when sysctls cannot decide userns), for
// every `corral run`. thorough: also forks a child that really unshares each namespace, mounts
// overlayfs and uses the mount API inside a user namespace, and creates a child cgroup
// (`corral doctor`).
enum class ProbeDepth { quick, thorough };

// Runs every probe. Cheap enough for each `corral run` (fork-free checks where possible).
Features probe_features();  // = probe_features(ProbeDepth::quick)
Features probe_features(ProbeDepth depth);

// What `policy` needs that `features` lacks: errors mean refuse (exit 125), warnings mean degraded.
struct Requirements {
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
};
Requirements check_requirements(const Features& features, const EffectivePolicy& policy);

}  // namespace corral
