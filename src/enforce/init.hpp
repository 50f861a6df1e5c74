// The sandbox's PID 1: starts the command, reaps every orphan, forwards signals, reports.
#pragma once

#include "enforce/child_config.hpp"

namespace corral {

// Runs as PID 1 of the sandbox's pid namespace once the sandbox is built. Forks the command
// (so it is not PID 1 and gets default signal semantics), reports `ready` or `exec_failed`, then
// `exited` with the command's wait status, and exits — which kills whatever the command left.
[[noreturn]] void run_init(ChildConfig& config);

}  // namespace corral
