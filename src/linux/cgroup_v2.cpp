// cgroup v2 specifics: handing controllers down to the run's leaf (subtree_control, and the
// "no internal processes" rule), the limit files, usage, and cgroup.freeze.
#include <algorithm>
#include <cerrno>
#include <string>

#include "linux/cgroup_detail.hpp"

namespace corral::cgroup {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::vector<std::string> read_words(CgroupFs& fs, const std::string& path) {
  std::string text;
  if (fs.read_file(path, text) != 0) return {};
  return split_words(text);
}

// A non-root v2 cgroup can either hold processes or hand domain controllers to children, never
// both. When ours holds processes (typically corral itself, in a delegated systemd scope or a
// container), move them into a child leaf of their own so the controllers can be enabled.
Result<void> evacuate(CgroupFs& fs, const std::string& own) {
  const std::string target = own + "/" + kCgroupSelfLeaf;
  if (int err = fs.make_dir(target); err != 0 && err != EEXIST)
    return fs_error(Errc::unsupported, "cannot create", target, err);
  // Processes may fork while we move them; a few rounds catch the stragglers.
  for (int round = 0; round < 20; ++round) {
    std::string text;
    if (int err = fs.read_file(own + "/cgroup.procs", text); err != 0)
      return fs_error(Errc::setup_failed, "cannot read", own + "/cgroup.procs", err);
    std::vector<pid_t> pids = parse_pids(text);
    if (pids.empty()) return {};
    for (pid_t pid : pids) {
      int err = fs.write_file(target + "/cgroup.procs", std::to_string(pid));
      if (err != 0 && err != ESRCH)
        return fs_error(Errc::unsupported,
                        "cgroup " + own +
                            " holds processes, so it cannot hand controllers to a "
                            "child cgroup, and moving process " +
                            std::to_string(pid) + " out of it failed: write",
                        target + "/cgroup.procs", err);
    }
  }
  return make_error(Errc::setup_failed, "processes keep appearing in cgroup " + own +
                                            " while corral moves them to " + target);
}

Error enable_error(const std::string& dir, const std::string& controller, int err) {
  Errc code =
      err == EACCES || err == EPERM || err == ENOENT ? Errc::unsupported : Errc::setup_failed;
  std::string hint;
  if (err == EACCES || err == EPERM)
    hint =
        " (not delegated to this user: run as root, or in a delegated subtree: "
        "systemd-run --user --scope -p Delegate=yes ...)";
  else if (err == ENOENT)
    hint = " (the controller is not available to this cgroup)";
  return fs_error(code, "cannot enable the " + controller + " controller" + hint + ": write",
                  dir + "/cgroup.subtree_control", err);
}

}  // namespace

Result<std::vector<std::string>> v2_prepare_parent(CgroupFs& fs, const std::string& own,
                                                   const std::string& parent_name,
                                                   const std::vector<std::string>& required,
                                                   const std::vector<std::string>& optional) {
  // Required first: an optional controller must never be the reason processes get moved.
  std::vector<std::string> wanted = required;
  for (const std::string& c : optional)
    if (!contains(wanted, c)) wanted.push_back(c);

  std::vector<std::string> in_own = read_words(fs, own + "/cgroup.subtree_control");
  std::vector<std::string> handed;  // enabled in <own>, so available to <own>/<parent_name>
  bool evacuated = false;
  for (const std::string& c : wanted) {
    if (contains(in_own, c)) {
      handed.push_back(c);
      continue;
    }
    int err = fs.write_file(own + "/cgroup.subtree_control", "+" + c);
    if (err == EBUSY && contains(required, c) && !evacuated) {
      if (auto r = evacuate(fs, own); !r) return std::move(r).error();
      evacuated = true;
      err = fs.write_file(own + "/cgroup.subtree_control", "+" + c);
    }
    if (err == 0)
      handed.push_back(c);
    else if (contains(required, c))
      return enable_error(own, c, err);
  }

  const std::string parent = own + "/" + parent_name;
  if (int err = fs.make_dir(parent); err != 0 && err != EEXIST)
    return fs_error(
        err == EACCES || err == EPERM || err == EROFS ? Errc::unsupported : Errc::setup_failed,
        "cannot create", parent, err);
  std::vector<std::string> in_parent = read_words(fs, parent + "/cgroup.subtree_control");
  std::vector<std::string> enabled;
  for (const std::string& c : handed) {
    if (contains(in_parent, c)) {
      enabled.push_back(c);
      continue;
    }
    // <parent> only ever holds run leaves, so EBUSY here means someone put a process into it.
    int err = fs.write_file(parent + "/cgroup.subtree_control", "+" + c);
    if (err == 0)
      enabled.push_back(c);
    else if (contains(required, c))
      return enable_error(parent, c, err);
  }
  return enabled;
}

Result<void> v2_write_limits(CgroupFs& fs, const std::string& leaf,
                             const std::vector<std::string>& controllers,
                             const CgroupLimits& limits) {
  if (contains(controllers, "memory") && limits.memory_bytes) {
    if (auto r = write_limit(fs, leaf + "/memory.max", std::to_string(*limits.memory_bytes),
                             "limits.memory");
        !r)
      return r;
    // The memory limit is meant as a ceiling on the run's footprint, not on its RAM share: no
    // swap at all (memory.swap.max is absent without swap accounting).
    if (fs.exists(leaf + "/memory.swap.max"))
      if (auto r = write_limit(fs, leaf + "/memory.swap.max", "0", "limits.memory"); !r) return r;
  }
  if (contains(controllers, "pids") && limits.pids) {
    if (auto r = write_limit(fs, leaf + "/pids.max", std::to_string(*limits.pids), "limits.pids");
        !r)
      return r;
  }
  if (contains(controllers, "cpu") && limits.cpus) {
    auto quota = cpu_quota_us(*limits.cpus);
    if (!quota) return std::move(quota).error();
    std::string value = std::to_string(*quota) + " " + std::to_string(kCpuPeriodUs);
    if (auto r = write_limit(fs, leaf + "/cpu.max", value, "limits.cpus"); !r) return r;
  }
  return {};
}

Result<void> v2_memory_stats(CgroupFs& fs, const std::string& leaf, CgroupStats& out) {
  // memory.peak exists since Linux 5.19; before it, the current usage is the best we have.
  auto peak = read_u64(fs, leaf + "/memory.peak");
  if (!peak) return std::move(peak).error();
  if (!peak->has_value()) {
    peak = read_u64(fs, leaf + "/memory.current");
    if (!peak) return std::move(peak).error();
  }
  out.peak_memory_bytes = peak->value_or(0);
  auto kills = read_keyed(fs, leaf + "/memory.events", "oom_kill");
  if (!kills) return std::move(kills).error();
  out.oom_kill_count = kills->value_or(0);
  out.oom_killed = out.oom_kill_count > 0;
  return {};
}

Result<void> v2_cpu_stats(CgroupFs& fs, const std::string& leaf, CgroupStats& out) {
  // cpu.stat's usage_usec is kept for every v2 cgroup, with or without the cpu controller.
  auto usec = read_keyed(fs, leaf + "/cpu.stat", "usage_usec");
  if (!usec) return std::move(usec).error();
  out.cpu_usage_ns = usec->value_or(0) * 1000;
  return {};
}

Result<void> v2_freeze(CgroupFs& fs, const std::string& leaf, bool frozen) {
  const std::string path = leaf + "/cgroup.freeze";
  if (int err = fs.write_file(path, frozen ? "1" : "0"); err != 0)
    return fs_error(Errc::setup_failed, frozen ? "cannot freeze: write" : "cannot thaw: write",
                    path, err);
  // cgroup.events says "frozen 1" once every task stopped; bounded, as for v1.
  for (int i = 0; i < 100; ++i) {
    auto state = read_keyed(fs, leaf + "/cgroup.events", "frozen");
    if (!state || !state->has_value() || **state == (frozen ? 1U : 0U)) break;
    sleep_ms(10);
  }
  return {};
}

}  // namespace corral::cgroup
