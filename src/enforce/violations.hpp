// What a trapped call becomes in a record: a seccomp refusal, a write the filesystem view
// refuses, or a write under a write_deny path no mount could protect. Shared by `corral run`
// (its parent answers the listener) and persistent sandboxes (their supervisor does).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "enforce/record.hpp"
#include "linux/seccomp.hpp"

namespace corral {

// The violation `ev` stands for, if any (its detail names the caller's pid as the answering
// process sees it: a host pid for `corral run`, a pid inside for a sandbox's supervisor): every
// refused call (a blocked syscall, or a write the monitor refuses under an absent write_deny
// path); a watched write only when the kernel will refuse it; a watched read of a read_deny
// path.
std::optional<Violation> violation_of(const SeccompEvent& ev);

// `v` with its subject and detail made valid UTF-8 (stray bytes as "\xNN") and the subject
// bounded: for anything that carries names the sandbox chose (paths, program names).
Violation printable_violation(Violation v);

// What no sandbox records, for `not_observed` (run records and `inspect`).
inline constexpr const char* kReadsNotObserved =
    "filesystem reads: a read_deny path is masked (EACCES, not found or empty) and attempts "
    "are not recorded unless filesystem.watch_reads (--watch-reads) is on";
inline constexpr const char* kReadsPartlyObserved =
    "filesystem reads: opens of read_deny paths are recorded; stat, exec and access probes "
    "of them are not";
// The one of the two that applies.
inline const char* reads_not_observed(bool watch_reads) {
  return watch_reads ? kReadsPartlyObserved : kReadsNotObserved;
}
inline constexpr const char* kEaccesWritesNotObserved =
    "filesystem writes refused by Landlock or file modes (EACCES) where no read-only mount "
    "refuses them first (/proc/self/*)";
// The same once Landlock's refusals are read from the audit log (`corral run` as root).
inline constexpr const char* kModeWritesNotObserved =
    "filesystem writes refused by file modes alone (EACCES), where neither a read-only mount "
    "nor Landlock refuses them";

// A command that retries a refused call in a loop must not grow corral's memory, the record or
// a log without bound: past this many trapped violations per command only a count is kept,
// reported as one last entry (kind "truncated").
inline constexpr std::size_t kMaxTrappedViolations = 1000;

// Counts and caps one command's trapped violations.
class ViolationCap {
 public:
  // Whether to keep another violation (false once the cap is reached: then it is counted).
  bool admit() {
    if (kept_ < kMaxTrappedViolations) {
      ++kept_;
      return true;
    }
    ++dropped_;
    return false;
  }
  // The "truncated" entry to append at the end, if anything was dropped.
  std::optional<Violation> summary() const;

 private:
  std::size_t kept_ = 0;
  std::uint64_t dropped_ = 0;
};

// The record's JSON form of one violation, and back (for the exec protocol and logs).
nlohmann::ordered_json violation_to_json(const Violation& v);
std::optional<Violation> violation_from_json(const nlohmann::json& j);

// Appends `entry` (a violation_to_json() with extra keys) as one line to violations.jsonl in
// directory `dir_fd`: one O_APPEND write, so lines from different writers never interleave.
// Best effort: a sandbox being removed has nowhere left to keep it.
void append_violation_line(int dir_fd, const nlohmann::ordered_json& entry);

// "filesystem /etc/x x2, seccomp mount": the one-line summary the CLI prints after a command.
std::string violation_summary(const std::vector<Violation>& violations);

}  // namespace corral
