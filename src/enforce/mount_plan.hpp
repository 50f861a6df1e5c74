// The mount plan: which mounts build the sandbox's root, in which order. Computed in the parent
// from an EffectivePolicy (pure, unit-tested); executed step by step by the child (contain.cpp).
#pragma once

#include <string>
#include <vector>

#include "linux/fs_guard.hpp"
#include "policy/policy.hpp"

namespace corral {

enum class MountOpKind {
  root_readonly,  // the host's whole tree, cloned recursively, every mount read-only
  tmpfs,          // a fresh private tmpfs (mode in `mode`)
  proc,           // a fresh procfs for the sandbox's pid namespace
  sysfs,          // a fresh read-only sysfs (only with a private network namespace)
  dev,            // a tmpfs /dev with null, zero, full, random, urandom, tty, pts, shm
  bind_rw,        // host `source` at `target`, writable
  bind_ro,        // host `source` at `target`, read-only
  deny_dir,       // an empty read-only tmpfs over a directory (mode 000, 0111 to reach allows)
  deny_file,      // an empty mode-000 file bound read-only over a file
  readonly_self,  // `target` (already visible) re-bound onto itself read-only
  file_content,   // a read-only file holding `source` (text) bound over `target`
  overlay,        // host `source` seen through overlayfs at `target`; writes land in `upper`
};

const char* mount_op_kind_name(MountOpKind kind);

struct MountOp {
  MountOpKind kind;
  std::string source;    // host path for binds; empty otherwise
  std::string target;    // absolute path inside the sandbox
  bool is_dir = true;    // what kind of mount point to create when missing
  unsigned mode = 0;     // tmpfs / deny_dir root mode
  bool optional = false; // skip silently when the target does not exist (e.g. /proc/bus)
  std::string reason;    // why this mount exists, for `policy show` and errors
  std::string upper;     // overlay only: the layer's upper and work directories
  std::string work;
};

struct MountPlanOptions {
  bool private_network = true;  // fresh sysfs only works in a network namespace we own
  // A copy-on-write workspace's layer directory (workspace/layer.hpp): the workspace becomes
  // an overlay with LAYER/upper and LAYER/work instead of a writable bind.
  std::string workspace_layer;
  // corral's own state directory: hidden like a read_deny directory (it holds the sockets of
  // persistent sandboxes, which would take commands from anyone who can connect), unless the
  // policy mounts it itself; paths the policy mounts inside it stay reachable (a traverse-only
  // mask). Empty or absent: nothing to hide.
  std::string hide_state;
};

struct MountPlan {
  std::vector<MountOp> ops;      // in execution order
  std::vector<std::string> remount_readonly_last;  // targets made read-only once all are mounted
};

// Orders user mounts by depth so that a deeper path is mounted on top of its parent, and at equal
// paths applies rw, then ro, then deny, then read_allow: the most specific rule is mounted last
// and wins.
MountPlan build_mount_plan(const EffectivePolicy& policy, const MountPlanOptions& options);

// write_deny paths a mount cannot protect because they do not exist yet (a file the command
// could create). The run record lists them under not_enforced.
std::vector<std::string> unprotected_write_deny(const EffectivePolicy& policy);

// What the seccomp monitor guards beyond the mounts (linux/fs_guard.hpp): `absent_deny` (from
// unprotected_write_deny(), plus corral's state directory `state_root` if it does not exist
// yet: a sandbox must not create it), every write_deny path and the state directory kept in
// place, and with filesystem.watch_reads the plan's masks and other mount points.
FsGuard fs_guard_for(const MountPlan& plan, const EffectivePolicy& policy,
                     std::vector<std::string> absent_deny, const std::string& state_root);

}  // namespace corral
