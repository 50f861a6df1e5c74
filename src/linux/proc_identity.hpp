// Naming a process safely across pid reuse: its start time, and a pidfd opened and then
// checked against that start time.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace corral {

// Field 22 of /proc/PID/stat (clock ticks since boot); 0 when the process does not exist or
// has already ended (a zombie).
std::uint64_t process_start_time(pid_t pid);
// pidfd_open(2); -1 with errno on failure.
int open_pidfd(pid_t pid);
// Every process whose parent chain leads to `ancestor` (not including it), from /proc.
std::vector<pid_t> descendants_of(pid_t ancestor);
// Resident memory of `pid` in bytes (/proc/PID/statm), 0 when gone.
std::uint64_t resident_bytes(pid_t pid);

}  // namespace corral
