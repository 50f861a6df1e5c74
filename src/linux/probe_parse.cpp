// Pure parsers for the probe: /proc/self/mountinfo cgroup mounts, /proc/self/cgroup, errno names.
// No I/O here, so unit tests feed fixed texts (a v1, a v2 and a hybrid machine).
#include <cerrno>
#include <string>
#include <string_view>
#include <vector>

#include "linux/probe_detail.hpp"

namespace corral::probe {
namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    parts.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// mountinfo escapes space, tab, newline and backslash in paths as \ooo.
std::string unescape_octal(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
        s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      out.push_back(
          static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// Super options of a v1 mount mix controllers with flags ("rw", "name=systemd", "clone_children");
// only known controller names count, so a new mount flag is never mistaken for a controller.
bool is_v1_controller(std::string_view opt) {
  static constexpr std::string_view kKnown[] = {
      "cpu", "cpuacct",    "cpuset",   "memory",  "devices", "freezer", "net_cls", "blkio",
      "io",  "perf_event", "net_prio", "hugetlb", "pids",    "rdma",    "misc"};
  for (auto k : kKnown)
    if (k == opt) return true;
  return false;
}

}  // namespace

std::vector<CgroupMount> parse_cgroup_mounts(std::string_view mountinfo) {
  std::vector<CgroupMount> mounts;
  for (std::string_view line : split(mountinfo, '\n')) {
    // "36 35 98:0 /root /mount/point rw,relatime shared:1 - fstype source super,options"
    size_t dash = line.find(" - ");
    if (dash == std::string_view::npos) continue;
    std::vector<std::string_view> head = split(line.substr(0, dash), ' ');
    std::vector<std::string_view> tail = split(line.substr(dash + 3), ' ');
    if (head.size() < 6 || tail.size() < 3) continue;
    std::string_view fstype = tail[0];
    if (fstype != "cgroup" && fstype != "cgroup2") continue;
    CgroupMount m;
    m.version = fstype == "cgroup2" ? 2 : 1;
    m.root = unescape_octal(head[3]);
    m.mount_point = unescape_octal(head[4]);
    if (m.version == 1) {
      for (std::string_view opt : split(tail[2], ','))
        if (is_v1_controller(opt)) m.controllers.emplace_back(opt);
    }
    mounts.push_back(std::move(m));
  }
  return mounts;
}

std::vector<CgroupMembership> parse_proc_cgroup(std::string_view text) {
  std::vector<CgroupMembership> out;
  for (std::string_view line : split(text, '\n')) {
    // The path may itself contain ':', so split only at the first two.
    size_t c1 = line.find(':');
    if (c1 == std::string_view::npos) continue;
    size_t c2 = line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    CgroupMembership m;
    std::string_view id = line.substr(0, c1);
    std::string_view ctrls = line.substr(c1 + 1, c2 - c1 - 1);
    m.path = std::string(line.substr(c2 + 1));
    m.v2 = id == "0" && ctrls.empty();
    if (!ctrls.empty())
      for (std::string_view c : split(ctrls, ',')) m.controllers.emplace_back(c);
    out.push_back(std::move(m));
  }
  return out;
}

std::string own_cgroup_dir(const CgroupMount& mount,
                           const std::vector<CgroupMembership>& memberships) {
  const CgroupMembership* mine = nullptr;
  for (const auto& m : memberships) {
    if (mount.version == 2 && m.v2) mine = &m;
    if (mount.version == 1 && !m.v2 && !mount.controllers.empty()) {
      // A v1 line lists every controller of its hierarchy; match on the first of the mount's.
      for (const auto& c : m.controllers)
        if (c == mount.controllers.front()) mine = &m;
    }
  }
  if (mine == nullptr) return "";
  // Paths in /proc/self/cgroup are relative to the hierarchy root; the mount may show only a
  // subtree of it (bind mounts, cgroup namespaces), whose root is then a prefix to strip.
  std::string path = mine->path;
  if (mount.root != "/" && path.rfind(mount.root, 0) == 0) path = path.substr(mount.root.size());
  if (path.empty() || path == "/") return mount.mount_point;
  if (path.front() != '/') path.insert(path.begin(), '/');
  return mount.mount_point + path;
}

std::string errno_name(int err) {
  switch (err) {
    case 0:
      return "success";
    case EPERM:
      return "EPERM";
    case ENOENT:
      return "ENOENT";
    case EBADF:
      return "EBADF";
    case EACCES:
      return "EACCES";
    case EFAULT:
      return "EFAULT";
    case EBUSY:
      return "EBUSY";
    case EEXIST:
      return "EEXIST";
    case EINVAL:
      return "EINVAL";
    case ENOSPC:
      return "ENOSPC";
    case EROFS:
      return "EROFS";
    case ENOSYS:
      return "ENOSYS";
    case EOPNOTSUPP:
      return "EOPNOTSUPP";
    case EUSERS:
      return "EUSERS";
    case ENOMEM:
      return "ENOMEM";
    case EOVERFLOW:
      return "EOVERFLOW";
    case ENODEV:
      return "ENODEV";
    case ENOTDIR:
      return "ENOTDIR";
    case EAGAIN:
      return "EAGAIN";
    case ECHILD:
      return "ECHILD";
    default:
      return "errno " + std::to_string(err);
  }
}

}  // namespace corral::probe
