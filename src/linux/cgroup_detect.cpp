// detect_cgroups: where our process sits in each mounted cgroup hierarchy, from mountinfo and
// /proc/self/cgroup (parsed by the probe's parsers), and which version will enforce limits.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "linux/cgroup_detail.hpp"
#include "linux/probe_detail.hpp"

namespace corral {
namespace {

bool is_dir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

int read_text(const std::string& path, std::string& out) {
  PosixCgroupFs fs;
  return fs.read_file(path, out);
}

// The v1 controllers corral uses: limits (memory, pids, cpu), usage (cpuacct), kill_all (freezer).
bool used_v1_controller(const std::string& c) {
  return c == "memory" || c == "pids" || c == "cpu" || c == "cpuacct" || c == "freezer";
}

// "/a/b/corral-self" -> "/a/b", "/corral-self" -> "/"; anything else unchanged.
std::string strip_self_leaf(const std::string& path) {
  std::string_view p = path;
  std::string_view leaf = kCgroupSelfLeaf;
  if (p.size() <= leaf.size() || p.substr(p.size() - leaf.size()) != leaf ||
      p[p.size() - leaf.size() - 1] != '/')
    return path;
  std::string_view parent = p.substr(0, p.size() - leaf.size() - 1);
  return parent.empty() ? std::string(1, '/') : std::string(parent);
}

bool has(const std::vector<std::string>& v, const char* s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

Result<CgroupLayout> detect_cgroups(const std::string& mountinfo_text,
                                    const std::string& proc_self_cgroup_text,
                                    const std::string& fs_prefix) {
  CgroupLayout layout;
  std::vector<probe::CgroupMembership> memberships =
      probe::parse_proc_cgroup(proc_self_cgroup_text);
  // A process that an earlier run moved into <cgroup>/corral-self still belongs, for corral's
  // purposes, to <cgroup>: nesting runs under corral-self would repeat the move on every run.
  for (probe::CgroupMembership& m : memberships)
    if (m.v2) m.path = strip_self_leaf(m.path);

  for (const probe::CgroupMount& mount : probe::parse_cgroup_mounts(mountinfo_text)) {
    std::string own = probe::own_cgroup_dir(mount, memberships);
    if (own.empty()) continue;  // a hierarchy we are not a member of
    std::string dir = fs_prefix + own;
    // A mount showing a subtree we are outside of (a bind mount from another container) yields a
    // path that does not exist; it is of no use to us.
    if (!is_dir(dir)) continue;
    if (mount.version == 2) {
      if (!layout.v2_root.empty()) continue;  // the same hierarchy mounted twice
      layout.v2_root = dir;
      layout.v2_mount = fs_prefix + mount.mount_point;
      std::string text;
      if (read_text(dir + "/cgroup.controllers", text) == 0)
        layout.v2_controllers = cgroup::split_words(text);
    } else {
      for (const std::string& c : mount.controllers)
        if (used_v1_controller(c) && !layout.v1_dirs.count(c)) layout.v1_dirs[c] = dir;
    }
  }

  const auto& v2c = layout.v2_controllers;
  bool v2_full =
      !layout.v2_root.empty() && has(v2c, "memory") && has(v2c, "pids") && has(v2c, "cpu");
  bool v1_any =
      layout.v1_dirs.count("memory") || layout.v1_dirs.count("pids") || layout.v1_dirs.count("cpu");
  if (v2_full)
    layout.version = CgroupLayout::Version::v2;
  else if (v1_any)
    layout.version = CgroupLayout::Version::v1;
  else if (!layout.v2_root.empty())
    layout.version = CgroupLayout::Version::v2;
  return layout;
}

Result<CgroupLayout> detect_cgroups() {
  std::string mountinfo, self_cgroup;
  if (int err = read_text("/proc/self/mountinfo", mountinfo); err != 0)
    return cgroup::fs_error(Errc::io_error, "cannot read", "/proc/self/mountinfo", err);
  if (int err = read_text("/proc/self/cgroup", self_cgroup); err != 0)
    return cgroup::fs_error(Errc::io_error, "cannot read", "/proc/self/cgroup", err);
  return detect_cgroups(mountinfo, self_cgroup, "");
}

}  // namespace corral
