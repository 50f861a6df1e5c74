// Cgroup limits for persistent sandboxes (see sandbox_cgroup.hpp).
#include "sandbox/sandbox_cgroup.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <thread>

#include "enforce/run_cgroup.hpp"
#include "linux/cgroup.hpp"

namespace corral::sandbox {
namespace {

CgroupLimits cgroup_limits(const Policy::Limits& l) { return {l.memory_bytes, l.pids, l.cpus}; }

Result<RunCgroup> make(const std::string& id, const Policy::Limits& limits) {
  auto layout = detect_cgroups();
  if (!layout) return std::move(layout).error();
  auto cg = RunCgroup::create(*layout, id, cgroup_limits(limits));
  if (!cg) {
    Error e = std::move(cg).error();
    e.message = "a persistent sandbox's limits need a cgroup: " + e.message;
    return e;
  }
  return cg;
}

}  // namespace

Result<void> check_sandbox_limits(const std::string& name, const Policy::Limits& limits) {
  auto probe = make(fmt::format("{}-probe-{}", getpid(), name), limits);
  if (!probe) return std::move(probe).error();
  (void)probe->remove();
  return {};
}

Result<std::vector<std::string>> limit_sandbox(const std::string& name, pid_t supervisor,
                                               const Policy::Limits& limits) {
  auto cg = make(fmt::format("{}-sandbox-{}", supervisor, name), limits);
  if (!cg) return std::move(cg).error();
  if (auto r = cg->attach(supervisor); !r) {
    (void)cg->remove();
    return std::move(r).error();
  }
  return cg->paths();
}

namespace {

// The number in a control file ("123\n"), or after `key` in a "key value" file.
std::optional<std::uint64_t> read_number(const std::string& path, const std::string& key = "") {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string k;
  std::uint64_t v = 0;
  if (key.empty()) return (in >> v) ? std::optional<std::uint64_t>(v) : std::nullopt;
  while (in >> k >> v)
    if (k == key) return v;
  return std::nullopt;
}

}  // namespace

SandboxUsage sandbox_usage(const std::vector<std::string>& dirs) {
  SandboxUsage u;
  for (const auto& d : dirs) {
    if (auto v = read_number(d + "/memory.usage_in_bytes")) u.memory_bytes = *v;    // v1
    if (auto v = read_number(d + "/memory.current")) u.memory_bytes = *v;           // v2
    if (auto v = read_number(d + "/memory.max_usage_in_bytes")) u.peak_memory_bytes = *v;
    if (auto v = read_number(d + "/memory.peak")) u.peak_memory_bytes = *v;
    if (auto v = read_number(d + "/memory.oom_control", "oom_kill")) u.oom_kills = *v;
    if (auto v = read_number(d + "/memory.events", "oom_kill")) u.oom_kills = *v;
    if (auto v = read_number(d + "/pids.current")) u.pids = *v;
    if (auto v = read_number(d + "/cpuacct.usage")) u.cpu_ms = *v / 1000000;        // ns
    if (auto v = read_number(d + "/cpu.stat", "usage_usec")) u.cpu_ms = *v / 1000;
  }
  return u;
}

void remove_sandbox_cgroup(const std::vector<std::string>& dirs) {
  for (const auto& d : dirs) {
    // The supervisor's death ends every process inside, but a cgroup empties a moment after.
    for (int i = 0; i < 100 && rmdir(d.c_str()) != 0 && errno == EBUSY; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace corral::sandbox
