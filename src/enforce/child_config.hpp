// Everything the sandbox child needs, computed by the parent before clone3 so that the child
// only reads memory and makes syscalls (no allocation, no locks: see linux/process.hpp).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "enforce/mount_plan.hpp"
#include "linux/landlock.hpp"
#include "linux/seccomp.hpp"

namespace corral {
namespace net {
struct ListenSpec;
}

struct ChildConfig {
  uid_t uid = 0;
  gid_t gid = 0;
  bool private_network = true;
  std::string hostname = "corral";

  MountPlan plan;
  std::vector<std::string> rel_targets;        // plan.ops[i].target relative to the new root
  std::vector<std::string> rel_readonly_last;  // plan.remount_readonly_last, relative
  std::vector<int> source_fds;                 // scratch: one slot per op, filled by the child

  landlock::Ruleset landlock;                  // abi 0: not applied
  // Landlock's denials are read from the audit log (enforce/landlock_denials.hpp): right after
  // restricting itself, init makes one write Landlock refuses, which names its domain there.
  bool landlock_beacon = false;
  int audit_fd = -1;                           // the parent's audit listener: closed at once
  const SeccompProgram* seccomp = nullptr;     // loaded last; owned by the parent's cache
  bool seccomp_listener = false;               // hand a notification fd to the parent

  std::vector<std::string> argv_storage;
  std::vector<char*> argv;                     // null-terminated, points into argv_storage
  std::vector<std::string> env_storage;
  std::vector<char*> envp;                     // null-terminated, points into env_storage
  std::string cwd;                             // where the command starts
  std::string fallback_cwd;                    // used when cwd is not visible inside

  int ctl_fd = -1;                             // child end of the control socketpair
  int parent_ctl_fd = -1;                      // the parent's end: the child closes its copy
  bool trace = false;                          // CORRAL_TRACE_SETUP=1: step timings on stderr
  int stdio_fds[3] = {-1, -1, -1};             // -1: inherit corral's own

  // Filtered egress (enforce/egress.hpp): sockets to open after `lo` is up and pass to the
  // parent. Null without an allowlist. The scratch buffers are sized by the parent.
  const std::vector<net::ListenSpec>* egress_specs = nullptr;
  int* egress_fds = nullptr;
  char* egress_control = nullptr;
  std::size_t egress_control_len = 0;

  // Persistent sandboxes (sandbox/supervisor.cpp): set, it runs as PID 1 once the root is built
  // and capabilities are dropped, instead of Landlock, seccomp and init; it applies those two to
  // every command it forks. No PDEATHSIG then: the sandbox outlives the process that made it.
  void (*persistent_main)(ChildConfig&) = nullptr;
  void* persistent_context = nullptr;
};

// Fills rel_targets, rel_readonly_last, source_fds, argv and envp from the other fields.
void finalize_child_config(ChildConfig& config);

// The child's whole life: set up the sandbox (contain.cpp), then act as its init (init.cpp).
// Never returns; exits 125 after reporting a setup failure to the parent.
[[noreturn]] void child_main(ChildConfig& config);

}  // namespace corral
