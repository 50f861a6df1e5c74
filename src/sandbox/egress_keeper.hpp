// The egress keeper of a persistent sandbox with a network allowlist: a host-side process, in a
// session of its own, that serves the sandbox's egress proxy (the same one `corral run` uses)
// for as long as the sandbox's supervisor lives. A run's proxy lives in the run's parent; a
// persistent sandbox outlives `corral create`, so its proxy needs a process that does too.
// It watches the supervisor's pidfd and exits when the supervisor does (stop, rm, a crash):
// nothing is left behind, and without it every connection fails (the sandbox has no route).
// Refusals are appended to the sandbox's logs/violations.jsonl within a second.
#pragma once

#include <sys/types.h>

#include "common/result.hpp"
#include "enforce/egress.hpp"

namespace corral::sandbox {

// Forks the keeper, which takes `listeners` over. `supervisor_pidfd` and `logs_dir_fd` stay
// open in the caller. Call only from a single-threaded process (spawn's intermediate): the
// keeper starts the proxy's thread after fork without exec. Returns the keeper's pid.
Result<pid_t> start_egress_keeper(const EgressSetup& setup, net::EgressListeners listeners,
                                  int supervisor_pidfd, int logs_dir_fd);

}  // namespace corral::sandbox
