// corral's one error type: a stable code, a message a user can act on, and where it came from.
#pragma once

#include <string>
#include <utility>

namespace corral {

// Stable codes; the CLI maps them to exit statuses (see cli/exit_status.hpp).
enum class Errc {
  invalid_input,    // bad policy file, flag, request: the caller must fix the input
  unsupported,      // a kernel feature the policy needs is missing: refuse, never pretend
  setup_failed,     // a syscall while building the sandbox failed
  not_found,        // a file, sandbox or command that was named does not exist
  io_error,         // reading or writing corral's own files failed
  internal,         // a bug in corral
  // Persistent sandboxes (sandbox/api.hpp): the verb's precondition, named so callers can act.
  already_exists,   // a sandbox of that name exists
  not_running,      // the sandbox is not in the state the verb needs (stopped, failed, running)
  path_not_mounted, // a path a command needs is outside every workspace of the sandbox
  could_not_start,  // the sandbox or the command in it could not be started
  busy,             // the thing is in use (e.g. a running sandbox's layer): stop it first
  conflict,         // the host changed underneath (e.g. apply over a host-side edit)
};

const char* errc_name(Errc code);

struct Error {
  Errc code = Errc::internal;
  std::string message;  // one sentence, says what to do
  std::string file;     // file involved, if any
  int line = 0;         // 1-based line in `file`, 0 when unknown
  std::string key;      // policy key or flag involved, if any

  // "file:line: key: message" with the parts that are set.
  std::string describe() const;
};

inline Error make_error(Errc code, std::string message) {
  Error e;
  e.code = code;
  e.message = std::move(message);
  return e;
}

}  // namespace corral
