// reap_stale_cgroups: removes run cgroups whose runs are gone (a crashed corral, a killed
// daemon), killing what still runs in them. Used by `corral gc` and at the start of runs.
#include <cerrno>
#include <map>
#include <string>

#include "linux/cgroup_detail.hpp"

namespace corral {

Result<std::vector<std::string>> reap_stale_cgroups(
    const CgroupLayout& layout, const std::function<bool(const std::string& id)>& is_live,
    std::chrono::seconds grace, const std::string& parent_name) {
  return reap_stale_cgroups(real_cgroup_fs(), layout, is_live, grace, parent_name);
}

Result<std::vector<std::string>> reap_stale_cgroups(
    std::shared_ptr<CgroupFs> fs, const CgroupLayout& layout,
    const std::function<bool(const std::string& id)>& is_live, std::chrono::seconds grace,
    const std::string& parent_name) {
  if (!cgroup::valid_name(parent_name) || parent_name == kCgroupSelfLeaf)
    return make_error(Errc::invalid_input, "cgroup parent name \"" + parent_name + "\" is invalid");

  // Gather each id's leaves over all hierarchies into the RunCgroup shape that kills and removes.
  struct Found {
    std::string v2_leaf;
    std::map<std::string, std::string> v1_leaves;
  };
  std::map<std::string, Found> found;
  auto scan = [&](const std::string& base, const std::string& controller) -> Result<void> {
    const std::string parent = base + "/" + parent_name;
    std::vector<std::string> names;
    int err = fs->list_dirs(parent, names);
    if (err == ENOENT) return {};
    if (err != 0) return cgroup::fs_error(Errc::io_error, "cannot list", parent, err);
    for (const std::string& id : names) {
      if (!cgroup::valid_name(id)) continue;  // not made by corral
      if (controller.empty())
        found[id].v2_leaf = parent + "/" + id;
      else
        found[id].v1_leaves[controller] = parent + "/" + id;
    }
    return {};
  };
  if (!layout.v2_root.empty())
    if (auto r = scan(layout.v2_root, ""); !r) return std::move(r).error();
  for (const auto& [controller, dir] : layout.v1_dirs)
    if (auto r = scan(dir, controller); !r) return std::move(r).error();

  std::vector<std::string> removed;
  std::vector<std::string> failed;
  std::string first_failure;
  const auto now = std::chrono::system_clock::now();
  for (auto& [id, f] : found) {
    if (is_live && is_live(id)) continue;
    RunCgroup rc;
    rc.fs_ = fs;
    rc.id_ = id;
    rc.v2_leaf_ = f.v2_leaf;
    rc.v1_leaves_ = f.v1_leaves;
    // The youngest of its dirs decides: a run creates them within moments of each other, and one
    // that is still being set up has not been registered as live yet.
    bool young = false;
    for (const std::string& dir : rc.paths()) {
      auto t = fs->mtime(dir);
      if (!t || now - *t < grace) young = true;
    }
    if (young) {
      rc.fs_.reset();  // not ours to touch: no rmdir from the destructor either
      continue;
    }
    std::vector<std::string> dirs = rc.paths();
    auto r = rc.kill_all();
    if (r) r = rc.remove();
    if (!r) {
      failed.push_back(id);
      if (first_failure.empty()) first_failure = r.error().message;
      rc.fs_.reset();
      continue;
    }
    removed.insert(removed.end(), dirs.begin(), dirs.end());
  }
  if (!failed.empty()) {
    std::string ids;
    for (const std::string& id : failed) ids += (ids.empty() ? "" : ", ") + id;
    return make_error(Errc::setup_failed, "could not remove the stale cgroups of run(s) " + ids +
                                              " (" + std::to_string(removed.size()) +
                                              " other dirs removed): " + first_failure);
  }
  return removed;
}

}  // namespace corral
