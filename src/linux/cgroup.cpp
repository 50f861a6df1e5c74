// RunCgroup: one run's cgroups across hierarchies. Decides per controller between v2 and v1,
// creates and limits the leaves, moves processes in, reports usage, kills, removes.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <string>

#include "linux/cgroup_detail.hpp"

namespace corral {
namespace {

using cgroup::fs_error;

constexpr const char* kLimitControllers[] = {"memory", "pids", "cpu"};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool limit_set(const CgroupLimits& l, const std::string& controller) {
  if (controller == "memory") return l.memory_bytes.has_value();
  if (controller == "pids") return l.pids.has_value();
  return l.cpus.has_value();
}

const char* limit_key(const std::string& controller) {
  if (controller == "memory") return "limits.memory";
  if (controller == "pids") return "limits.pids";
  return "limits.cpus";
}

const char* delegate_hint() {
  return "run as root, or on cgroup v2 with a delegated subtree "
         "(systemd-run --user --scope -p Delegate=yes corral run ...)";
}

Error not_writable(const std::string& controller, const std::string& dir, bool v2) {
  std::string where = v2 ? "cgroup v2" : "cgroup v1 " + controller + " hierarchy";
  Error e = make_error(Errc::unsupported, controller + " limits need a writable cgroup: " + dir +
                                              " (" + where + ") is not writable by uid " +
                                              std::to_string(geteuid()) + "; " + delegate_hint());
  e.file = dir;
  e.key = limit_key(controller);
  return e;
}

Error missing_controller(const std::string& controller, const CgroupLayout& layout) {
  std::string v2 = "no cgroup v2 hierarchy is mounted";
  if (!layout.v2_root.empty()) {
    v2 = "cgroup v2 offers only [";
    for (size_t i = 0; i < layout.v2_controllers.size(); ++i)
      v2 += (i ? " " : "") + layout.v2_controllers[i];
    v2 += "] to " + layout.v2_root;
  }
  Error e = make_error(
      Errc::unsupported,
      controller + " limits need the " + controller + " cgroup controller, which no hierarchy " +
          "offers here (" + v2 + "; no cgroup v1 " + controller + " hierarchy): enable it (a " +
          "systemd unit with Delegate=yes hands it to a user; cgroup_enable=" + controller +
          " on the kernel command line if the kernel disables it)");
  e.file = layout.v2_root;
  e.key = limit_key(controller);
  return e;
}

Result<void> validate_limits(const CgroupLimits& l) {
  auto bad = [](const char* key, const char* msg) {
    Error e = make_error(Errc::invalid_input, msg);
    e.key = key;
    return e;
  };
  if (l.memory_bytes && *l.memory_bytes == 0)
    return bad("limits.memory", "the memory limit must be more than 0 bytes");
  if (l.pids && *l.pids == 0) return bad("limits.pids", "the pids limit must be at least 1");
  if (l.cpus)
    if (auto q = cgroup::cpu_quota_us(*l.cpus); !q) return std::move(q).error();
  return {};
}

// mkdir of a run's leaf; the parent dir is shared by runs and may exist already.
Result<void> make_leaf(CgroupFs& fs, const std::string& parent, const std::string& leaf) {
  if (int err = fs.make_dir(parent); err != 0 && err != EEXIST)
    return fs_error(
        err == EACCES || err == EPERM || err == EROFS ? Errc::unsupported : Errc::setup_failed,
        "cannot create", parent, err);
  int err = fs.make_dir(leaf);
  if (err == EEXIST)
    return make_error(Errc::setup_failed, "cgroup " + leaf +
                                              " already exists: another run uses this id, or a "
                                              "crashed one left it (corral gc removes it)");
  if (err != 0)
    return fs_error(
        err == EACCES || err == EPERM || err == EROFS ? Errc::unsupported : Errc::setup_failed,
        "cannot create", leaf, err);
  return {};
}

}  // namespace

Result<RunCgroup> RunCgroup::create(const CgroupLayout& layout, const std::string& run_id,
                                    const CgroupLimits& limits, const std::string& parent_name) {
  return create(real_cgroup_fs(), layout, run_id, limits, parent_name);
}

Result<RunCgroup> RunCgroup::create(std::shared_ptr<CgroupFs> fs, const CgroupLayout& layout,
                                    const std::string& run_id, const CgroupLimits& limits,
                                    const std::string& parent_name) {
  if (!cgroup::valid_name(run_id))
    return make_error(
        Errc::invalid_input,
        "run id \"" + run_id + "\" cannot name a cgroup: use 1-128 of [A-Za-z0-9._-]");
  if (!cgroup::valid_name(parent_name) || parent_name == kCgroupSelfLeaf)
    return make_error(Errc::invalid_input, "cgroup parent name \"" + parent_name +
                                               "\" is invalid: use 1-128 of [A-Za-z0-9._-]");
  if (auto r = validate_limits(limits); !r) return std::move(r).error();

  // Per controller: v2 if the v2 hierarchy offers it, else v1; a limit that neither can enforce
  // for this user is refused before anything is created.
  const bool v2_usable = !layout.v2_root.empty() && fs->writable(layout.v2_root);
  std::vector<std::string> v2_required, v2_optional;
  std::map<std::string, std::string> v1_use;  // controller -> our dir in its hierarchy
  for (std::string c : kLimitControllers) {
    const bool needed = limit_set(limits, c);
    if (contains(layout.v2_controllers, c) && !layout.v2_root.empty()) {
      if (v2_usable)
        (needed ? v2_required : v2_optional).push_back(c);
      else if (needed)
        return not_writable(c, layout.v2_root, true);
      continue;
    }
    auto it = layout.v1_dirs.find(c);
    if (it != layout.v1_dirs.end()) {
      if (fs->writable(it->second))
        v1_use[c] = it->second;
      else if (needed)
        return not_writable(c, it->second, false);
      continue;
    }
    if (needed) return missing_controller(c, layout);
  }
  // Usage and freezing: a v2 leaf has cpu.stat and cgroup.freeze/kill itself; without one, the
  // v1 cpuacct and freezer hierarchies serve, when we may write there.
  if (!v2_usable)
    for (const char* c : {"cpuacct", "freezer"}) {
      auto it = layout.v1_dirs.find(c);
      if (it != layout.v1_dirs.end() && fs->writable(it->second)) v1_use[c] = it->second;
    }

  // From here on, a failure drops `rc`, whose destructor removes the leaves made so far.
  RunCgroup rc;
  rc.fs_ = fs;
  rc.id_ = run_id;
  if (v2_usable) {
    auto enabled =
        cgroup::v2_prepare_parent(*fs, layout.v2_root, parent_name, v2_required, v2_optional);
    if (!enabled) return std::move(enabled).error();
    const std::string parent = layout.v2_root + "/" + parent_name;
    const std::string leaf = parent + "/" + run_id;
    if (auto r = make_leaf(*fs, parent, leaf); !r) return std::move(r).error();
    rc.v2_leaf_ = leaf;
    rc.v2_controllers_ = *enabled;
    if (auto r = cgroup::v2_write_limits(*fs, leaf, rc.v2_controllers_, limits); !r)
      return std::move(r).error();
    int fd = fs->open_dir(leaf);
    if (fd < 0) return fs_error(Errc::setup_failed, "cannot open", leaf, -fd);
    rc.v2_fd_.reset(fd);
  }
  std::map<std::string, std::string> leaf_of_dir;  // co-mounted controllers share one leaf
  for (const auto& [c, dir] : v1_use) {
    auto it = leaf_of_dir.find(dir);
    if (it == leaf_of_dir.end()) {
      const std::string parent = dir + "/" + parent_name;
      const std::string leaf = parent + "/" + run_id;
      if (auto r = make_leaf(*fs, parent, leaf); !r) return std::move(r).error();
      it = leaf_of_dir.emplace(dir, leaf).first;
    }
    rc.v1_leaves_[c] = it->second;
    if (auto r = cgroup::v1_write_limits(*fs, c, it->second, limits); !r)
      return std::move(r).error();
  }
  return rc;
}

RunCgroup& RunCgroup::operator=(RunCgroup&& o) noexcept {
  if (this == &o) return *this;
  if (fs_)
    for (const std::string& dir : paths()) fs_->remove_dir(dir);
  fs_ = std::move(o.fs_);
  id_ = std::move(o.id_);
  v2_leaf_ = std::move(o.v2_leaf_);
  v2_controllers_ = std::move(o.v2_controllers_);
  v1_leaves_ = std::move(o.v1_leaves_);
  v2_fd_ = std::move(o.v2_fd_);
  o.v2_leaf_.clear();
  o.v1_leaves_.clear();
  return *this;
}

RunCgroup::~RunCgroup() {
  // One rmdir each, no waiting and no killing: it only succeeds for leaves nothing uses, such as
  // those of a run that failed before it started. Anything else is left for reap_stale_cgroups.
  if (!fs_) return;
  v2_fd_.reset();
  for (const std::string& dir : paths()) fs_->remove_dir(dir);
}

std::vector<std::string> RunCgroup::paths() const {
  std::vector<std::string> out;
  if (!v2_leaf_.empty()) out.push_back(v2_leaf_);
  for (const auto& [c, leaf] : v1_leaves_)
    if (!contains(out, leaf)) out.push_back(leaf);
  return out;
}

std::string RunCgroup::dir_for(const std::string& controller) const {
  if (contains(v2_controllers_, controller)) return v2_leaf_;
  auto it = v1_leaves_.find(controller);
  return it == v1_leaves_.end() ? "" : it->second;
}

int RunCgroup::clone_into_fd() const { return v1_leaves_.empty() ? v2_fd_.get() : -1; }

Result<void> RunCgroup::attach(pid_t pid) {
  for (const std::string& dir : paths()) {
    const std::string procs = dir + "/cgroup.procs";
    int err = fs_->write_file(procs, std::to_string(pid));
    if (err != 0)
      return fs_error(
          err == ESRCH ? Errc::not_found : Errc::setup_failed,
          "cannot move process " + std::to_string(pid) + " into the run's cgroup: write", procs,
          err);
  }
  return {};
}

std::vector<pid_t> RunCgroup::procs() {
  std::set<pid_t> all;  // every hierarchy should list the same processes; the union is safe
  for (const std::string& dir : paths()) {
    std::string text;
    if (fs_->read_file(dir + "/cgroup.procs", text) == 0)
      for (pid_t p : cgroup::parse_pids(text)) all.insert(p);
  }
  return {all.begin(), all.end()};
}

Result<CgroupStats> RunCgroup::stats() {
  CgroupStats s;
  if (std::string mem = dir_for("memory"); !mem.empty()) {
    auto r = mem == v2_leaf_ ? cgroup::v2_memory_stats(*fs_, mem, s)
                             : cgroup::v1_memory_stats(*fs_, mem, s);
    if (!r) return std::move(r).error();
  }
  // cpuacct counts nanoseconds; v2's usage_usec only microseconds, so v1 wins where both exist.
  if (auto it = v1_leaves_.find("cpuacct"); it != v1_leaves_.end()) {
    if (auto r = cgroup::v1_cpu_stats(*fs_, it->second, s); !r) return std::move(r).error();
  } else if (!v2_leaf_.empty()) {
    if (auto r = cgroup::v2_cpu_stats(*fs_, v2_leaf_, s); !r) return std::move(r).error();
  }
  if (std::string pids = dir_for("pids"); !pids.empty())
    if (auto r = cgroup::pids_stats(*fs_, pids, s); !r) return std::move(r).error();
  return s;
}

Result<void> RunCgroup::kill_all() {
  if (paths().empty()) return {};
  // cgroup.kill (Linux 5.14+) kills the whole subtree at once, forks in flight included.
  bool killed = !v2_leaf_.empty() && fs_->exists(v2_leaf_ + "/cgroup.kill") &&
                fs_->write_file(v2_leaf_ + "/cgroup.kill", "1") == 0;
  if (!killed) {
    // Freeze first so nothing forks between reading cgroup.procs and the kills; thaw after, as
    // a v1-frozen task only acts on its SIGKILL once thawed.
    auto freezer = v1_leaves_.find("freezer");
    bool v2 = !v2_leaf_.empty();
    bool frozen = false;
    if (v2)
      frozen = cgroup::v2_freeze(*fs_, v2_leaf_, true).ok();
    else if (freezer != v1_leaves_.end())
      frozen = cgroup::v1_freeze(*fs_, freezer->second, true).ok();
    if (frozen) {
      for (pid_t p : procs()) ::kill(p, SIGKILL);
      auto thawed = v2 ? cgroup::v2_freeze(*fs_, v2_leaf_, false)
                       : cgroup::v1_freeze(*fs_, freezer->second, false);
      if (!thawed) return std::move(thawed).error();
    }
  }
  // Wait until the kernel has let every process go, killing again whatever is (still) listed:
  // without a freezer, that catches children forked while we were killing.
  std::vector<pid_t> left;
  for (int round = 0; round < 500; ++round) {
    left = procs();
    if (left.empty()) return {};
    for (pid_t p : left) ::kill(p, SIGKILL);
    cgroup::sleep_ms(10);
  }
  return make_error(Errc::setup_failed,
                    std::to_string(left.size()) + " process(es) of run " + id_ +
                        " survived SIGKILL (first: " + std::to_string(left.front()) + ") in " +
                        paths().front());
}

Result<void> RunCgroup::remove() {
  v2_fd_.reset();
  std::optional<Error> first_error;
  std::vector<std::string> kept;
  for (const std::string& dir : paths()) {
    int err = 0;
    // Processes that were just killed leave the cgroup a moment later.
    for (int attempt = 0; attempt < 100; ++attempt) {
      err = fs_->remove_dir(dir);
      if (err != EBUSY) break;
      cgroup::sleep_ms(10);
    }
    if (err == 0 || err == ENOENT) continue;
    kept.push_back(dir);
    if (!first_error)
      first_error = fs_error(Errc::setup_failed,
                             err == EBUSY ? "cgroup still has processes (kill_all() first): rmdir"
                                          : "cannot remove cgroup: rmdir",
                             dir, err);
  }
  // Forget what is gone, so neither a second remove() nor the destructor touches it again.
  if (!contains(kept, v2_leaf_)) {
    v2_leaf_.clear();
    v2_controllers_.clear();
  }
  for (auto it = v1_leaves_.begin(); it != v1_leaves_.end();)
    it = contains(kept, it->second) ? std::next(it) : v1_leaves_.erase(it);
  if (first_error) return *first_error;
  return {};
}

}  // namespace corral
