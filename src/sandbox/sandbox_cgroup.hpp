// A persistent sandbox's memory/pids/cpu limits: one cgroup per running supervisor, named
// <supervisor pid>-sandbox-NAME beneath the creator's corral/ cgroup (as runs are), so the
// reaper of `corral run` and `corral gc` removes it once that supervisor is gone. The supervisor
// moves in as soon as it is ready, before any command: every exec inherits the limits.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "policy/policy.hpp"

namespace corral::sandbox {

// Whether such a cgroup can be made here, by making one and removing it: Errc::unsupported
// with the reason (no writable cgroup for this user, a missing controller) otherwise. Called
// before anything is created.
Result<void> check_sandbox_limits(const std::string& name, const Policy::Limits& limits);

// Creates the cgroup and moves `supervisor` (a host pid) into it; returns its leaf dirs.
Result<std::vector<std::string>> limit_sandbox(const std::string& name, pid_t supervisor,
                                               const Policy::Limits& limits);

// What the sandbox's cgroup has counted (a limited sandbox): read from its leaf dirs, v1 or v2.
struct SandboxUsage {
  std::uint64_t memory_bytes = 0, peak_memory_bytes = 0;  // 0 without a memory controller
  std::uint64_t oom_kills = 0;
  std::uint64_t pids = 0;
  std::uint64_t cpu_ms = 0;
};
SandboxUsage sandbox_usage(const std::vector<std::string>& dirs);

// Removes the leaf dirs once the supervisor is gone (retrying briefly while the last processes
// leave). What stays behind is the reaper's.
void remove_sandbox_cgroup(const std::vector<std::string>& dirs);

}  // namespace corral::sandbox
