// The run's cgroup: created before the clone, joined by the child before it enters its cgroup
// namespace, read and removed after the run. Crashed runs' cgroups are reaped by the next run.
#pragma once

#include <optional>
#include <string>

#include "common/result.hpp"
#include "enforce/record.hpp"
#include "linux/cgroup.hpp"
#include "policy/policy.hpp"

namespace corral {

// Whether the policy asks for memory, pids or cpu limits (which need a cgroup).
bool any_limit(const Policy::Limits& limits);

// "<owner pid>-<run id>": the owner's pid lets a later run (or `corral gc`) see the owner died.
std::string cgroup_name_for(const std::string& run_id);
// Whether the corral process that made cgroup `name` is still alive.
bool cgroup_owner_alive(const std::string& name);

// Reaps cgroups of dead runs, then makes a cgroup for this run. With limits, a missing or unwritable controller is an error (refuse
// rather than run unlimited); without limits the run goes on without one (nullopt, and
// *why_none says why, for the record's not_observed) and only loses cgroup accounting.
Result<std::optional<RunCgroup>> make_run_cgroup(const Policy::Limits& limits,
                                                 const std::string& run_id, std::string* why_none);

// Reaps cgroups whose owner died (opportunistic at each run; `corral gc` calls it too).
Result<std::vector<std::string>> reap_orphan_cgroups(std::chrono::seconds grace);

// Fills the record from the cgroup's counters (peak memory, OOM kills, pids limit hits, CPU).
void record_cgroup_stats(RunCgroup& cgroup, const Policy::Limits& limits, RunRecord& record);

}  // namespace corral
