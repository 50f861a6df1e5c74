// Builds the ordered mount plan for a sandbox root from an EffectivePolicy.
#include "enforce/mount_plan.hpp"

#include <sys/stat.h>

#include <algorithm>

namespace corral {

const char* mount_op_kind_name(MountOpKind kind) {
  switch (kind) {
    case MountOpKind::root_readonly: return "root-readonly";
    case MountOpKind::tmpfs: return "tmpfs";
    case MountOpKind::proc: return "proc";
    case MountOpKind::sysfs: return "sysfs";
    case MountOpKind::dev: return "dev";
    case MountOpKind::bind_rw: return "bind-rw";
    case MountOpKind::bind_ro: return "bind-ro";
    case MountOpKind::deny_dir: return "deny-dir";
    case MountOpKind::deny_file: return "deny-file";
    case MountOpKind::readonly_self: return "readonly-self";
    case MountOpKind::file_content: return "file-content";
    case MountOpKind::overlay: return "overlay";
  }
  return "?";
}

namespace {

size_t depth(const std::string& path) {
  if (path == "/") return 0;
  return static_cast<size_t>(std::count(path.begin(), path.end(), '/'));
}

bool is_directory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool path_exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

bool is_inside(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

struct UserMount {
  MountOp op;
  int precedence;  // at equal targets, higher is mounted later and wins
};

}  // namespace

std::vector<std::string> unprotected_write_deny(const EffectivePolicy& policy) {
  std::vector<std::string> out;
  for (const auto& p : policy.filesystem.write_deny)
    if (!path_exists(p)) out.push_back(p);
  return out;
}

FsGuard fs_guard_for(const MountPlan& plan, const EffectivePolicy& policy,
                     std::vector<std::string> absent_deny, const std::string& state_root) {
  FsGuard g;
  g.absent_deny = std::move(absent_deny);
  g.keep_in_place = policy.filesystem.write_deny;
  g.keep_in_place.insert(g.keep_in_place.end(), policy.filesystem.write_deny_names.begin(),
                         policy.filesystem.write_deny_names.end());
  if (!state_root.empty() && state_root != "/") {
    g.keep_in_place.push_back(state_root);
    if (!path_exists(state_root)) g.absent_deny.push_back(state_root);
  }
  g.watch_reads = policy.filesystem.watch_reads;
  if (!g.watch_reads) return g;
  for (const auto& op : plan.ops) {
    bool mask = op.kind == MountOpKind::deny_dir || op.kind == MountOpKind::deny_file;
    (mask ? g.read_deny : g.read_allow).push_back(op.target);
  }
  return g;
}

MountPlan build_mount_plan(const EffectivePolicy& policy, const MountPlanOptions& options) {
  MountPlan plan;
  auto add = [&plan](MountOp op) { plan.ops.push_back(std::move(op)); };

  // The base view: everything read-only, then the kernel filesystems of the new namespaces.
  add({MountOpKind::root_readonly, "/", "/", true, 0, false, "host root, read-only"});
  add({MountOpKind::tmpfs, "", "/tmp", true, 01777, false, "private /tmp"});
  add({MountOpKind::proc, "", "/proc", true, 0, false, "procfs of the sandbox's pid namespace"});
  for (const char* p : {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"})
    add({MountOpKind::readonly_self, "", p, true, 0, true, "kernel tunables stay read-only"});
  if (options.private_network)
    add({MountOpKind::sysfs, "", "/sys", true, 0, false, "sysfs of the sandbox's network namespace"});
  add({MountOpKind::dev, "", "/dev", true, 0755, false, "minimal /dev"});

  // The policy's own mounts.
  std::vector<UserMount> user;
  const auto& fs = policy.filesystem;
  for (const auto& p : fs.write_allow)
    user.push_back({{MountOpKind::bind_rw, p, p, is_directory(p), 0, false,
                     p == policy.workspace ? "workspace" : "write_allow"}, 0});
  for (const auto& p : fs.read_only)
    user.push_back({{MountOpKind::bind_ro, p, p, is_directory(p), 0, false, "read_only"}, 1});
  // write_deny paths that exist are bound read-only over themselves; ones that do not exist yet
  // cannot be protected by a mount (see unprotected_write_deny()).
  for (const auto& p : fs.write_deny)
    if (path_exists(p))
      user.push_back({{MountOpKind::bind_ro, p, p, is_directory(p), 0, false, "write_deny"}, 1});
  for (const auto& p : fs.read_deny) {
    bool dir = is_directory(p);
    bool reopened = std::any_of(fs.read_allow.begin(), fs.read_allow.end(),
                                [&](const std::string& a) { return is_inside(a, p); });
    if (dir)
      user.push_back({{MountOpKind::deny_dir, "", p, true, reopened ? 0111u : 0u, false, "read_deny"}, 2});
    else
      user.push_back({{MountOpKind::deny_file, "", p, false, 0, false, "read_deny"}, 2});
  }
  for (const auto& p : fs.read_allow)
    user.push_back({{MountOpKind::bind_ro, p, p, is_directory(p), 0, false, "read_allow"}, 3});
  const std::string& state = options.hide_state;
  if (!state.empty() && state != "/" && is_directory(state) &&
      std::none_of(user.begin(), user.end(), [&](const UserMount& u) { return u.op.target == state; })) {
    // A path the policy mounts inside it stays reachable through a traverse-only mask, as a
    // read_allow inside a read_deny does; the rest stays hidden.
    const bool reopened = std::any_of(user.begin(), user.end(), [&](const UserMount& u) {
      return is_inside(u.op.target, state);
    });
    user.push_back({{MountOpKind::deny_dir, "", state, true, reopened ? 0111u : 0u, false,
                     "corral's state (persistent sandboxes' sockets)"}, 2});
  }

  std::stable_sort(user.begin(), user.end(), [](const UserMount& a, const UserMount& b) {
    size_t da = depth(a.op.target), db = depth(b.op.target);
    if (da != db) return da < db;
    if (a.op.target != b.op.target) return a.op.target < b.op.target;
    return a.precedence < b.precedence;
  });
  for (auto& u : user) {
    if (u.op.kind == MountOpKind::bind_rw && u.op.target == policy.workspace &&
        policy.workspace_cow && !options.workspace_layer.empty()) {
      u.op.kind = MountOpKind::overlay;
      u.op.upper = options.workspace_layer + "/upper";
      u.op.work = options.workspace_layer + "/work";
      u.op.reason = "workspace, copy-on-write";
    }
    if (u.op.kind == MountOpKind::deny_dir) plan.remount_readonly_last.push_back(u.op.target);
    add(std::move(u.op));
  }
  plan.remount_readonly_last.push_back("/dev");
  return plan;
}

}  // namespace corral
