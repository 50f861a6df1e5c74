// Where persistent sandboxes live on disk and how their state is read, written and locked.
// Layout (others build on it):
//   <root>/sandboxes/NAME/{state.json, lock, supervisor.sock, home/, logs/}
// root: $CORRAL_HOME, else /var/lib/corral for root, else $XDG_DATA_HOME/corral
// (~/.local/share/corral).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "linux/fd.hpp"
#include "sandbox/state.hpp"

namespace corral::sandbox {

Result<std::string> state_root();

struct Paths {
  std::string dir, state, lock, socket, home, logs;
};
Paths paths_for(const std::string& root, const std::string& name);

// Holds the sandbox's flock (exclusive) until destroyed. Only state changes take it; exec never.
class StateLock {
 public:
  static Result<StateLock> acquire(const Paths& paths);
 private:
  explicit StateLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

// Errc::not_found with a message that says how to create it, when there is no such sandbox.
Result<State> load_state(const Paths& paths);
Result<void> save_state(const Paths& paths, const State& state);

// The status as it is now: a `running` sandbox whose supervisor is gone has `failed`; a
// `creating` one whose creator is gone has too.
Status live_status(const State& state);
bool supervisor_alive(const State& state);

// Names of every sandbox under `root`, sorted.
std::vector<std::string> list_names(const std::string& root);

}  // namespace corral::sandbox
