// cgroup v1 specifics: the limit files of the memory, pids and cpu hierarchies, usage from
// memory/cpuacct, and the freezer hierarchy's state file.
#include <cerrno>
#include <string>

#include "linux/cgroup_detail.hpp"

namespace corral::cgroup {

Result<void> v1_write_limits(CgroupFs& fs, const std::string& controller, const std::string& leaf,
                             const CgroupLimits& limits) {
  if (controller == "memory" && limits.memory_bytes) {
    std::string bytes = std::to_string(*limits.memory_bytes);
    if (auto r = write_limit(fs, leaf + "/memory.limit_in_bytes", bytes, "limits.memory"); !r)
      return r;
    // With swap accounting, memory+swap gets the same ceiling, so the run cannot spill into swap
    // (memsw must be >= the memory limit, hence second). memory.oom_control stays default: the
    // kernel OOM-kills inside the cgroup rather than pausing it.
    std::string memsw = leaf + "/memory.memsw.limit_in_bytes";
    if (fs.exists(memsw))
      if (auto r = write_limit(fs, memsw, bytes, "limits.memory"); !r) return r;
  }
  if (controller == "pids" && limits.pids) {
    if (auto r = write_limit(fs, leaf + "/pids.max", std::to_string(*limits.pids), "limits.pids");
        !r)
      return r;
  }
  if (controller == "cpu" && limits.cpus) {
    auto quota = cpu_quota_us(*limits.cpus);
    if (!quota) return std::move(quota).error();
    if (auto r = write_limit(fs, leaf + "/cpu.cfs_period_us", std::to_string(kCpuPeriodUs),
                             "limits.cpus");
        !r)
      return r;
    if (auto r = write_limit(fs, leaf + "/cpu.cfs_quota_us", std::to_string(*quota), "limits.cpus");
        !r)
      return r;
  }
  return {};
}

Result<void> v1_memory_stats(CgroupFs& fs, const std::string& leaf, CgroupStats& out) {
  auto peak = read_u64(fs, leaf + "/memory.max_usage_in_bytes");
  if (!peak) return std::move(peak).error();
  out.peak_memory_bytes = peak->value_or(0);
  // "oom_kill N" exists since Linux 4.13; older kernels only say under_oom.
  auto kills = read_keyed(fs, leaf + "/memory.oom_control", "oom_kill");
  if (!kills) return std::move(kills).error();
  out.oom_kill_count = kills->value_or(0);
  out.oom_killed = out.oom_kill_count > 0;
  return {};
}

Result<void> v1_cpu_stats(CgroupFs& fs, const std::string& leaf, CgroupStats& out) {
  auto usage = read_u64(fs, leaf + "/cpuacct.usage");
  if (!usage) return std::move(usage).error();
  out.cpu_usage_ns = usage->value_or(0);
  return {};
}

Result<void> v1_freeze(CgroupFs& fs, const std::string& leaf, bool frozen) {
  const std::string path = leaf + "/freezer.state";
  const char* want = frozen ? "FROZEN" : "THAWED";
  if (int err = fs.write_file(path, want); err != 0)
    return fs_error(Errc::setup_failed, std::string("cannot set ") + want + ": write", path, err);
  // Freezing is asynchronous (FREEZING until every task stopped). A task stuck in the kernel may
  // never freeze; after the bound, the caller kills anyway, which is still correct, only racier.
  for (int i = 0; i < 100; ++i) {
    std::string state;
    if (fs.read_file(path, state) != 0) break;
    if (split_words(state) == std::vector<std::string>{want}) break;
    sleep_ms(10);
  }
  return {};
}

}  // namespace corral::cgroup
