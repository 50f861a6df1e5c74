// The library face of persistent sandboxes, the verbs of the CLI (seed 000's shape): create,
// exec (streamed, or captured into a typed result), stop (release: the home volume stays),
// start, remove (destroy: volume gone), update, list, inspect, and the preflight. Errors are
// values with a stable code: Errc::not_found, already_exists, not_running, path_not_mounted,
// could_not_start, invalid_input.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "enforce/record.hpp"
#include "policy/policy.hpp"
#include "sandbox/jobs.hpp"
#include "sandbox/state.hpp"

namespace corral::sandbox {

struct CreateRequest {
  std::string name;
  EffectivePolicy policy;            // resolved; stored as is, `start` reuses it
  std::vector<Workspace> workspaces; // the first is policy.workspace
  nlohmann::json inputs = nlohmann::json::object();  // how to resolve the policy again (update)
  std::string home;                  // where the home volume appears inside; empty: $HOME
  std::uint64_t log_limit_bytes = 8u << 20;  // background output kept per stream
};

Result<State> create(const CreateRequest& request);
Result<State> start(const std::string& name);
Result<State> stop(const std::string& name);
Result<void> remove(const std::string& name, bool force);
// Recreates the sandbox with `policy` (the current resolution of its inputs), keeping the
// home volume; running again afterwards if it was running.
Result<State> update(const std::string& name, const EffectivePolicy& policy);

// `corral fork NAME NEW`: a new sandbox NEW, stopped, with NAME's policy and workspaces, a copy
// of its home volume and (with a copy-on-write workspace) a fork of its layer; the two diverge
// from then on. NAME may be running: what its commands write during the copy may or may not be
// in it (stop NAME first for an exact copy). Errc::already_exists when NEW exists.
Result<State> fork_sandbox(const std::string& name, const std::string& new_name);

struct Inspection {
  State state;                       // status is the live one
  std::vector<int> pids;             // host pids: the supervisor, then every process inside
  std::uint64_t resident_bytes = 0;  // their resident memory together
  // With limits: what the sandbox's cgroup counted (memory now and at peak, OOM kills, tasks,
  // CPU time), as JSON; null without a cgroup.
  nlohmann::json cgroup_usage;
  std::vector<Job> jobs;
  std::size_t violations = 0;             // lines in logs/violations.jsonl
  std::vector<std::string> not_observed;  // what this sandbox does not record
};
std::vector<State> list();           // every sandbox, live status
Result<Inspection> inspect(const std::string& name);
nlohmann::json inspection_to_json(const Inspection& in);

// Seed 000's ensureSandboxExists: the sandbox exists, is running, and every path is inside
// one of its workspaces (Errc::path_not_mounted naming the first that is not).
Result<State> preflight(const std::string& name, const std::vector<std::string>& required_paths);

struct ExecOptions {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env_overlay;  // literal values, over the policy's env
  std::vector<std::string> env_pass;               // extra names taken from host_env
  std::string cwd;                                 // empty: the caller's, if inside a workspace
  std::optional<std::chrono::milliseconds> timeout;  // empty: the policy's limits.timeout
  std::vector<std::string> required_paths;         // preflight before anything runs
  bool keep_stdin = false;                         // -i
  bool tty = false;                                // -t
  bool background = false;                         // -d
  std::vector<std::string> host_env;               // empty: the caller's environment
  int signal_fd = -1;                              // signals to forward to the command
};

struct ExecOutcome {
  int exit_code = 0;       // run's contract: status, 128+N, 124, 126, 127
  bool timed_out = false;
  // limits.output_bytes: the command (stdout and stderr together) wrote more, so its output
  // was cut there and its tree killed (137); also a "limit" violation.
  bool output_limit_reached = false;
  std::string job_id;      // -d
  int pid = 0;             // inside the sandbox
  std::string error;       // set with 126/127: why it could not execute
  // Foreground: what the command (and what it started) was refused, as in a run record. Every
  // exec's violations, -d included, are also appended to logs/violations.jsonl.
  std::vector<Violation> violations;
};

// Streams: the command uses `stdio` (the caller's fds) directly; returns when it ends (or,
// with background, once it started). Errors: nothing ran.
Result<ExecOutcome> exec(const std::string& name, const ExecOptions& options, const int stdio[3]);

// Seed 000's SandboxResult: exit code and everything the command wrote. `on_stdout` /
// `on_stderr` (optional) also see each chunk as it arrives.
struct CapturedExec {
  int exit_code = 0;
  std::string stdout_data, stderr_data;
};
Result<CapturedExec> exec_captured(const std::string& name, const ExecOptions& options,
                                   std::function<void(const char*, size_t)> on_stdout = {},
                                   std::function<void(const char*, size_t)> on_stderr = {});

// Kills a background job's whole tree.
Result<void> kill_job(const std::string& name, const std::string& job_id);

// The logs directory of a sandbox (for `corral logs`).
Result<std::string> logs_dir(const std::string& name);

// Marks sandboxes whose creator or supervisor died as failed; returns their names.
std::vector<std::string> reap_failed();

}  // namespace corral::sandbox
