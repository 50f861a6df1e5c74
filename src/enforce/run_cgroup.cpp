// Per-run cgroup management on top of linux/cgroup: naming, ownership, stats into the record.
#include "enforce/run_cgroup.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fmt/format.h>

namespace corral {

bool any_limit(const Policy::Limits& l) { return l.memory_bytes || l.pids || l.cpus; }

std::string cgroup_name_for(const std::string& run_id) {
  std::string safe;
  for (char c : run_id)
    safe += (isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  if (safe.size() > 100) safe.resize(100);
  return fmt::format("{}-{}", getpid(), safe);
}

bool cgroup_owner_alive(const std::string& name) {
  auto dash = name.find('-');
  if (dash == std::string::npos || dash == 0) return false;
  pid_t pid = 0;
  try {
    pid = static_cast<pid_t>(std::stol(name.substr(0, dash)));
  } catch (...) {
    return false;
  }
  return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

Result<std::optional<RunCgroup>> make_run_cgroup(const Policy::Limits& limits,
                                                 const std::string& run_id, std::string* why_none) {
  constexpr const char* kFallback = "; peak memory is the largest single process's";
  auto layout = detect_cgroups();
  if (!layout) {
    if (any_limit(limits)) return std::move(layout).error();
    *why_none = "cgroup accounting: " + layout.error().message + kFallback;
    return std::optional<RunCgroup>{};
  }
  // A crashed corral leaves its run's cgroup behind; whoever runs next cleans it up (with a
  // grace period, so a concurrent run's fresh cgroup is left alone).
  (void)reap_stale_cgroups(*layout, cgroup_owner_alive, std::chrono::seconds(5));
  // Without limits a cgroup only adds accounting, and moving a process into a v1 cgroup costs
  // milliseconds (cgroup.procs writes wait for an RCU grace period): take one only where the
  // child can be cloned straight into it (pure v2, CLONE_INTO_CGROUP).
  if (!any_limit(limits) && layout->version != CgroupLayout::Version::v2) {
    *why_none = std::string("cgroup accounting: a run without limits takes no cgroup on a "
                            "cgroup v1 host (joining one costs milliseconds); --memory, --pids "
                            "or --cpus give it one") + kFallback;
    return std::optional<RunCgroup>{};
  }
  CgroupLimits cl{limits.memory_bytes, limits.pids, limits.cpus};
  auto cg = RunCgroup::create(*layout, cgroup_name_for(run_id), cl);
  if (!cg) {
    if (any_limit(limits)) return std::move(cg).error();
    *why_none = "cgroup accounting: no writable cgroup for this user (" + cg.error().message +
                ")" + kFallback;
    return std::optional<RunCgroup>{};
  }
  return std::optional<RunCgroup>(std::move(*cg));
}

Result<std::vector<std::string>> reap_orphan_cgroups(std::chrono::seconds grace) {
  auto layout = detect_cgroups();
  if (!layout) return std::move(layout).error();
  return reap_stale_cgroups(*layout, cgroup_owner_alive, grace);
}

void record_cgroup_stats(RunCgroup& cgroup, const Policy::Limits& limits, RunRecord& rec) {
  auto stats = cgroup.stats();
  if (!stats) return;
  if (stats->peak_memory_bytes > 0) rec.peak_memory_bytes = stats->peak_memory_bytes;
  if (stats->cpu_usage_ns > 0) rec.cpu_ms = static_cast<std::int64_t>(stats->cpu_usage_ns / 1000000);
  if (stats->oom_killed) {
    rec.oom_killed = true;
    rec.violations.push_back({"limit", now_rfc3339(), "memory",
                              fmt::format("out of memory: {} process(es) killed at the limit of {} bytes",
                                          stats->oom_kill_count, limits.memory_bytes.value_or(0))});
  }
  if (stats->pids_limit_hit)
    rec.violations.push_back({"limit", now_rfc3339(), "pids",
                              fmt::format("{} fork(s) refused at the limit of {} tasks",
                                          stats->pids_max_events, limits.pids.value_or(0))});
}

}  // namespace corral
