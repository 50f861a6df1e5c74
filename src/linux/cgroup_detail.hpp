// Internals shared by the cgroup_*.cpp files: control-file parsing and the v1/v2 specific steps.
// Everything goes through CgroupFs so it runs unchanged against a fake tree.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "linux/cgroup.hpp"

namespace corral::cgroup {

// Run ids and parent names become directory names: [A-Za-z0-9._-], 1..128 chars, not "."/"..".
bool valid_name(const std::string& name);

std::optional<std::uint64_t> parse_u64(std::string_view text);  // trims whitespace
// The value of `key` in a flat keyed file ("oom_kill 3\nmax 0\n").
std::optional<std::uint64_t> keyed_u64(std::string_view text, std::string_view key);
std::vector<pid_t> parse_pids(std::string_view text);
std::vector<std::string> split_words(std::string_view text);

std::string errno_text(int err);  // "EACCES (Permission denied)"
Error fs_error(Errc code, const std::string& what, const std::string& path, int err);
// Writes one limit file; the error names the key ("memory.max") and the path.
Result<void> write_limit(CgroupFs& fs, const std::string& path, const std::string& value,
                         const char* key);

// CPU bandwidth: period and quota in microseconds for `cpus` CPUs.
inline constexpr std::uint64_t kCpuPeriodUs = 100000;
Result<std::uint64_t> cpu_quota_us(double cpus);

// Reads a number file; nullopt when it is missing, an error when it exists but is unreadable.
Result<std::optional<std::uint64_t>> read_u64(CgroupFs& fs, const std::string& path);
Result<std::optional<std::uint64_t>> read_keyed(CgroupFs& fs, const std::string& path,
                                                std::string_view key);

// --- v1 (cgroup_v1.cpp) ---
// Writes the limits a v1 leaf of `controller` enforces.
Result<void> v1_write_limits(CgroupFs& fs, const std::string& controller, const std::string& leaf,
                             const CgroupLimits& limits);
Result<void> v1_memory_stats(CgroupFs& fs, const std::string& leaf, CgroupStats& out);
Result<void> v1_cpu_stats(CgroupFs& fs, const std::string& leaf, CgroupStats& out);
// freezer.state FROZEN / THAWED, waiting (bounded) until the kernel reports it done.
Result<void> v1_freeze(CgroupFs& fs, const std::string& leaf, bool frozen);

// --- v2 (cgroup_v2.cpp) ---
// Makes <own>/<parent_name> hand `required` controllers (and those of `optional` it can) to its
// children; returns the controllers now enabled there. Moves the processes of <own> into
// <own>/corral-self when the "no internal processes" rule demands it for a required controller.
Result<std::vector<std::string>> v2_prepare_parent(CgroupFs& fs, const std::string& own,
                                                   const std::string& parent_name,
                                                   const std::vector<std::string>& required,
                                                   const std::vector<std::string>& optional);
Result<void> v2_write_limits(CgroupFs& fs, const std::string& leaf,
                             const std::vector<std::string>& controllers,
                             const CgroupLimits& limits);
Result<void> v2_memory_stats(CgroupFs& fs, const std::string& leaf, CgroupStats& out);
Result<void> v2_cpu_stats(CgroupFs& fs, const std::string& leaf, CgroupStats& out);
Result<void> v2_freeze(CgroupFs& fs, const std::string& leaf, bool frozen);

// pids.events "max N": same file and key in v1 and v2.
Result<void> pids_stats(CgroupFs& fs, const std::string& leaf, CgroupStats& out);

void sleep_ms(int ms);

}  // namespace corral::cgroup
