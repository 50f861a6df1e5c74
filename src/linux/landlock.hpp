// Landlock: the second wall behind the mount view. The ruleset is computed in the parent (pure,
// testable) and applied by the sandbox's init with plain syscalls (no allocation).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/policy.hpp"

namespace corral::landlock {

// Access rights by ABI. Debian's headers stop at ABI 2, so the later constants are ours.
inline constexpr std::uint64_t kExecute = 1ULL << 0;
inline constexpr std::uint64_t kWriteFile = 1ULL << 1;
inline constexpr std::uint64_t kReadFile = 1ULL << 2;
inline constexpr std::uint64_t kReadDir = 1ULL << 3;
inline constexpr std::uint64_t kRemoveDir = 1ULL << 4;
inline constexpr std::uint64_t kRemoveFile = 1ULL << 5;
inline constexpr std::uint64_t kMakeChar = 1ULL << 6;
inline constexpr std::uint64_t kMakeDir = 1ULL << 7;
inline constexpr std::uint64_t kMakeReg = 1ULL << 8;
inline constexpr std::uint64_t kMakeSock = 1ULL << 9;
inline constexpr std::uint64_t kMakeFifo = 1ULL << 10;
inline constexpr std::uint64_t kMakeBlock = 1ULL << 11;
inline constexpr std::uint64_t kMakeSym = 1ULL << 12;
inline constexpr std::uint64_t kRefer = 1ULL << 13;     // ABI 2
inline constexpr std::uint64_t kTruncate = 1ULL << 14;  // ABI 3
inline constexpr std::uint64_t kIoctlDev = 1ULL << 15;  // ABI 5
inline constexpr std::uint64_t kScopeAbstractUnix = 1ULL << 0;  // ABI 6
inline constexpr std::uint64_t kScopeSignal = 1ULL << 1;        // ABI 6
inline constexpr std::uint32_t kLogNewExecOn = 1U << 1;         // ABI 7 restrict_self flag

// Every filesystem right the given ABI knows.
std::uint64_t fs_rights_for_abi(int abi);
// The rights that make sense on a regular file (the kernel rejects others with EINVAL).
std::uint64_t file_rights(std::uint64_t rights);

struct Rule {
  std::string path;      // absolute path inside the sandbox
  std::uint64_t access;  // rights granted beneath it
  bool is_dir = true;
};

struct Ruleset {
  int abi = 0;                    // 0: Landlock unavailable, nothing to apply
  std::uint64_t handled_fs = 0;   // everything not granted by a rule is denied
  std::uint64_t scoped = 0;       // ABI 6 scopes (abstract unix sockets, signals)
  std::uint32_t restrict_flags = 0;
  std::vector<Rule> rules;
};

// Read and execute everywhere; full rights beneath the writable paths (workspace, write_allow,
// /tmp, /dev/shm); read/write/ioctl on device files under /dev. Nothing else is writable, not
// even where a mount would allow it (e.g. /proc/self/*).
Ruleset build_ruleset(const EffectivePolicy& policy, int abi);

// Child side: creates the ruleset, adds every rule whose path exists, restricts the calling
// thread. Requires no_new_privs. Returns 0 or errno; `*failed_rule` names the rule index on
// failure (or -1 for the ruleset itself).
int apply_ruleset(const Ruleset& ruleset, int* failed_rule);

// apply_ruleset() in two halves, for a supervisor that restricts each child it forks: the
// ruleset fd is built once (*ruleset_fd, O_CLOEXEC; -1 when abi is 0), and each child only
// calls restrict_self() with it. Same return conventions.
int create_ruleset_fd(const Ruleset& ruleset, int* failed_rule, int* ruleset_fd);
int restrict_self(int ruleset_fd, std::uint32_t restrict_flags);

}  // namespace corral::landlock
