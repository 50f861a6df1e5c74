// The run record of DESIGN.md: one JSON object describing what a run did.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace corral {

struct Violation {
  std::string kind;     // "filesystem", "seccomp", "network", "limit", ...
  std::string time;     // RFC 3339, UTC
  std::string subject;  // the path, host or syscall involved
  std::string detail;
  std::optional<std::uint16_t> port;  // network violations: the port asked for
};

struct RunRecord {
  std::string id;
  std::vector<std::string> argv;
  int exit_code = 0;                  // DESIGN.md's contract (124..127, 128+N, or the command's)
  std::optional<int> signal;          // the signal that killed the command, if any
  bool timed_out = false;
  bool oom_killed = false;
  bool cancelled = false;
  bool output_truncated = false;      // output passed the limit: cut there, the command killed
  std::int64_t duration_ms = 0;
  std::int64_t cpu_ms = 0;            // user + system of every process the sandbox reaped
  std::uint64_t peak_memory_bytes = 0;  // largest resident set of a single process
  std::string policy_hash;
  std::vector<Violation> violations;
  std::vector<std::string> writes;
  // Whether `writes` is the exact list: true for a copy-on-write workspace (read from its
  // layer); false otherwise (writes to a plain writable workspace are not observed yet).
  bool writes_exact = false;
  // Copy-on-write workspaces only: {"mode": "cow", "layer", "kept", "changes": [...]}, the
  // changes with kind/type/size/mode as `corral diff --json` prints them. Absent otherwise.
  std::optional<nlohmann::ordered_json> workspace;
  std::optional<std::string> error;   // why the command did not run (126/127/125)
  std::vector<std::string> not_enforced;  // parts of the policy this kernel could not enforce
  std::vector<std::string> not_observed;  // kinds of violation this build cannot observe yet
  std::map<std::string, std::uint64_t> network_allowed;  // allowlist: allowed connections per host
};

nlohmann::ordered_json record_to_json(const RunRecord& record);
std::string rfc3339(std::chrono::system_clock::time_point t);  // "2026-11-29T22:44:11.213Z"
inline std::string now_rfc3339() { return rfc3339(std::chrono::system_clock::now()); }
std::string signal_name(int sig);  // "SIGKILL"

}  // namespace corral
