// The exit statuses of DESIGN.md's public contract.
#pragma once

namespace corral::exit_status {

// corral run / corral exec
inline constexpr int timed_out = 124;
inline constexpr int corral_failed = 125;   // bad policy, missing feature, setup error
inline constexpr int not_executable = 126;
inline constexpr int not_found = 127;
inline constexpr int signal_base = 128;     // 128 + N when the command died of signal N

// every other subcommand
inline constexpr int success = 0;
inline constexpr int failure = 1;
inline constexpr int usage = 2;

}  // namespace corral::exit_status
