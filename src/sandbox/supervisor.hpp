// The supervisor: PID 1 of a persistent sandbox. It accepts exec requests on the listening
// socket that `create` bound at supervisor.sock and passed in (no path inside the sandbox is
// needed), forks each command into the existing namespaces, restricts it exactly as `corral
// run` would (Landlock, then seccomp, just before execve), and reports its status back.
// Background commands (-d) keep running without their client; the supervisor writes their
// output to logs/ (bounded) and their record to logs/ID.json.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "enforce/child_config.hpp"
#include "linux/fs_guard.hpp"

namespace corral::sandbox {

struct SupervisorContext {
  int listen_fd = -1;      // bound and listening before the clone
  int logs_dir_fd = -1;    // sandboxes/NAME/logs, opened before the clone (the host's view)
  std::uint64_t log_limit_bytes = 8u << 20;  // per stream: older output is dropped past this
  int layer_lock_fd = -1;  // a copy-on-write workspace's layer lock, held while mounted (or -1)
  FsGuard fs_guard;  // what each command's seccomp monitor checks (linux/fs_guard.hpp)
  // A memory limit: the supervisor shares the cgroup with the commands; with oom_score_adj 1000
  // a command's OOM score gains the limit's worth, so the killer picks it over the (small)
  // supervisor, whose own score cannot be lowered without CAP_SYS_RESOURCE.
  bool commands_oom_first = false;
  // limits.output_bytes: a background job that writes more is cut there and killed. (The
  // client enforces it on foreground output, which goes to it, not through the supervisor.)
  std::optional<std::uint64_t> output_limit_bytes;
};

// ChildConfig::persistent_main for persistent sandboxes. Never returns.
void supervisor_main(ChildConfig& config);

}  // namespace corral::sandbox
