// Starting a persistent sandbox's supervisor (create, start, update): build the child's
// configuration from the stored policy, clone it into new namespaces through a short-lived
// intermediate (so the supervisor is nobody's zombie and the clone happens in a single-threaded
// process), and wait until it reports ready.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "policy/policy.hpp"
#include "sandbox/state.hpp"
#include "sandbox/store.hpp"

namespace corral::sandbox {

struct SpawnRequest {
  std::string name;         // also the sandbox's hostname
  EffectivePolicy policy;
  Paths paths;
  std::string home;         // where paths.home is mounted inside
  std::uint64_t log_limit_bytes = 8u << 20;
};

struct Spawned {
  ProcessIdentity supervisor;
  ProcessIdentity egress_keeper;    // with a network allowlist: the proxy's process
  std::vector<std::string> cgroup;  // its cgroup's leaf dirs when the policy has limits
};
Result<Spawned> spawn_supervisor(const SpawnRequest& request);

}  // namespace corral::sandbox
