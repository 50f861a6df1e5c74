// A persistent sandbox's memory/pids/cpu limits: one cgroup per running supervisor, named
// <supervisor pid>-sandbox-NAME beneath the creator's corral/ cgroup (as runs are), so the
// reaper of `corral run` and `corral gc` removes it once that supervisor is gone. The supervisor
// moves in as soon as it is ready, before any command: every exec inherits the limits.
#pragma once

#include <sys/types.h>

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

// Removes the leaf dirs once the supervisor is gone (retrying briefly while the last processes
// leave). What stays behind is the reaper's.
void remove_sandbox_cgroup(const std::vector<std::string>& dirs);

}  // namespace corral::sandbox
