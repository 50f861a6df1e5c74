// The library entry point for one-shot runs, shaped like seed 004's SandboxPolicyEnforcer.run:
// configure, start, read live stdout/stderr, then a completion that yields the run record.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "enforce/landlock_denials.hpp"
#include "enforce/record.hpp"
#include "enforce/violations.hpp"
#include "linux/cgroup.hpp"
#include "linux/fd.hpp"
#include "net/egress_proxy.hpp"
#include "policy/policy.hpp"

namespace corral {

enum class StdioMode {
  inherit,  // the command uses the caller's stdin/stdout/stderr (the CLI: zero copies, tty works)
  pipe,     // stdin is /dev/null; stdout and stderr are pipes the caller reads (the library)
};

struct RunRequest {
  EffectivePolicy policy;
  std::vector<std::string> argv;
  std::string cwd;                               // empty: the workspace
  std::map<std::string, std::string> env_overlay;  // literal values, applied last
  std::string id;                                // correlation id; empty: a fresh one
  StdioMode stdio = StdioMode::pipe;
  bool inherit_stdin = false;                    // pipe mode: keep the caller's stdin
  std::vector<std::string> host_env;             // the caller's environment; empty: ours
  // policy.workspace_cow: the layer directory (workspace/layer.hpp) whose upper/ and work/
  // the overlay uses. The caller creates it, holds its lock, and reads the changes afterwards.
  std::string workspace_layer;
};

// A started run. Destroying it cancels the run if it is still going.
class Execution {
 public:
  ~Execution();
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;

  const std::string& id() const { return record_.id; }
  // Readable ends of the command's stdout/stderr (StdioMode::pipe), -1 otherwise. Whoever
  // reads them must keep reading until EOF, or a chatty command blocks.
  int stdout_fd() const { return out_.get(); }
  int stderr_fd() const { return err_.get(); }

  // Forwards `sig` to the command (through the sandbox's init).
  void signal(int sig);
  // Kills the whole sandbox: init and every process in its pid namespace. wait() still settles.
  void cancel();

  struct WaitOptions {
    int signal_fd = -1;  // a signalfd whose signals are forwarded to the command
    // With StdioMode::pipe: called with each chunk of output as it arrives (live streams).
    // When set, wait() reads the pipes itself until EOF.
    std::function<void(const char*, size_t)> on_stdout, on_stderr;
  };
  // Blocks until the sandbox is gone. A non-zero exit is data in the record; an error means the
  // sandbox could not be set up (Errc::setup_failed / unsupported), and nothing ran.
  Result<RunRecord> wait(const WaitOptions& options);
  Result<RunRecord> wait() { return wait(WaitOptions{}); }

 private:
  friend Result<std::unique_ptr<Execution>> start_run(RunRequest request);
  Execution() = default;

  pid_t pid_ = -1;
  UniqueFd pidfd_, ctl_, out_, err_;
  RunRecord record_;
  std::vector<std::string> op_descriptions_;  // mount plan, to name the op that failed
  std::vector<std::string> landlock_paths_;   // Landlock rules, likewise
  std::vector<int> watched_nrs_;              // seccomp: write-type calls the monitor checks
  FsGuard fs_guard_;  // what the seccomp monitor checks beyond the mounts (fs_guard.hpp)
  ViolationCap trapped_cap_;                    // bounds what the seccomp listener adds
  // Landlock's own refusals, read from the kernel audit log when corral may (root, audit on).
  std::optional<audit::Listener> audit_;
  std::optional<LandlockDenials> landlock_denials_;
  std::uint32_t audit_lost_at_start_ = 0;
  void watch_landlock_denials(int landlock_abi);  // at start: opens audit_ or says why not
  void collect_landlock_denials();  // after the sandbox is gone: the rest of the log, then merge
  void release_cgroup();  // kills what is left in the run's cgroup and removes it

  std::unique_ptr<net::EgressProxy> egress_;  // allowlist: this run's own proxy
  std::optional<RunCgroup> cgroup_;
  Policy::Limits limits_;
  std::chrono::steady_clock::time_point started_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  bool finished_ = false;
};

// Checks that this kernel can enforce the policy (Errc::unsupported otherwise), builds the
// sandbox and starts the command. Returns as soon as the sandbox's init runs.
Result<std::unique_ptr<Execution>> start_run(RunRequest request);

// Convenience for callers that want everything at once (seed 000's SandboxResult).
struct CapturedRun {
  RunRecord record;
  std::string stdout_data;
  std::string stderr_data;
};
Result<CapturedRun> run_and_capture(RunRequest request);

// A fresh correlation id ("run-" + 16 hex digits).
std::string new_run_id();

}  // namespace corral
