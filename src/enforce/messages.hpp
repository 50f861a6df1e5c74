// Typed messages from the sandbox's init to the parent, over a SOCK_SEQPACKET socketpair.
// One fixed-size struct per message, so the child never allocates to send one.
#pragma once

#include <cstdint>

namespace corral {

enum class ChildMsgType : std::uint32_t {
  ready = 1,          // setup done, the command is about to exec (pid = its pid in the sandbox)
  setup_failed = 2,   // a setup step failed: step, op_index, err
  exec_failed = 3,    // the command could not be executed: err (ENOENT → 127, else 126)
  exited = 4,         // the command ended: wait_status as from waitpid
  seccomp_listener = 5,  // carries the seccomp notification fd (SCM_RIGHTS)
  egress_listeners = 6,  // carries the egress bridge's listening sockets (op_index = count)
};

// The setup steps, in the order contain() runs them; named in error messages.
enum class SetupStep : std::uint32_t {
  wait_parent = 1,
  id_maps,
  cgroup_ns,
  hostname,
  loopback,
  mount_private,
  clone_sources,
  staging,
  mount_op,
  remount_readonly,
  pivot_root,
  drop_capabilities,
  no_new_privs,
  securebits,
  landlock,
  seccomp,
  fork_command,
  chdir,
  egress_bridge,
};

const char* setup_step_name(SetupStep step);

struct ChildMsg {
  ChildMsgType type;
  SetupStep step;
  std::uint32_t op_index;  // index into the mount plan for mount_op / clone_sources
  std::int32_t err;        // errno
  std::int32_t pid;
  std::int32_t wait_status;
};

// What the parent sends to let the child continue (after it placed it in its cgroup, later).
struct ParentMsg {
  std::uint32_t go;
};

}  // namespace corral
