// A persistent sandbox's state: its name, where it is in its lifecycle, and what it was made
// from. Pure data and pure rules (unit-tested); store.hpp reads and writes it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace corral::sandbox {

// Names become directory names and appear in messages: 1-63 characters of [A-Za-z0-9_.-],
// starting with a letter or digit. Errc::invalid_input naming the problem otherwise.
Result<void> validate_name(const std::string& name);

// The lifecycle (youki's shape): creating → running ⇄ stopped; running → failed when the
// supervisor dies; failed → running again by `start`. Removal is allowed from every state but
// running (rm -f stops first).
enum class Status { creating, running, stopped, failed };
const char* status_name(Status s);
Result<Status> parse_status(const std::string& s);

// What each verb needs; otherwise Errc::not_running, with a message saying what to do instead.
Result<void> check_can_exec(const std::string& name, Status s);
Result<void> check_can_stop(const std::string& name, Status s);
Result<void> check_can_start(const std::string& name, Status s);
Result<void> check_can_remove(const std::string& name, Status s, bool force);
Result<void> check_can_update(const std::string& name, Status s);

// A process named so that a recycled pid is never mistaken for it: pid plus its start time in
// clock ticks since boot (/proc/PID/stat field 22).
struct ProcessIdentity {
  pid_t pid = 0;
  std::uint64_t start_time = 0;
  friend bool operator==(const ProcessIdentity&, const ProcessIdentity&) = default;
};

struct Workspace {
  std::string path;  // absolute host path, seen at the same path inside
  std::string mode;  // "rw" or "ro" (the first workspace: "rw" or "cow")
  friend bool operator==(const Workspace&, const Workspace&) = default;
};

struct State {
  std::string name;
  Status status = Status::creating;
  nlohmann::json policy;        // the effective policy (policy_to_json), what the sandbox enforces
  std::string policy_hash;
  nlohmann::json inputs;        // creation inputs (flags, cwd, HOME) for `update`
  std::vector<Workspace> workspaces;
  std::string home;             // where the home volume is mounted inside (the creator's $HOME)
  std::string created_at, started_at, stopped_at;  // RFC 3339, empty when never
  ProcessIdentity supervisor;   // while running
  ProcessIdentity egress_keeper;  // while running with a network allowlist: the proxy's process
  ProcessIdentity creator;      // while creating: who is building it
  std::string error;            // why it failed, when it did
  std::uint64_t log_limit_bytes = 0;  // per background stream, kept on disk
  std::vector<std::string> cgroup;    // while running with limits: its cgroup's leaf dirs

  friend bool operator==(const State&, const State&) = default;
};

nlohmann::json state_to_json(const State& s);
Result<State> state_from_json(const nlohmann::json& j);

// Whether `path` (absolute, normalized) is one of the workspaces or beneath one.
bool inside_workspaces(const std::vector<Workspace>& workspaces, const std::string& path);

}  // namespace corral::sandbox
