// Formatting of corral::Error for users.
#include "common/error.hpp"

namespace corral {

const char* errc_name(Errc code) {
  switch (code) {
    case Errc::invalid_input: return "invalid_input";
    case Errc::unsupported: return "unsupported";
    case Errc::setup_failed: return "setup_failed";
    case Errc::not_found: return "not_found";
    case Errc::io_error: return "io_error";
    case Errc::internal: return "internal";
    case Errc::already_exists: return "already_exists";
    case Errc::not_running: return "not_running";
    case Errc::path_not_mounted: return "path_not_mounted";
    case Errc::could_not_start: return "could_not_start";
    case Errc::busy: return "busy";
    case Errc::conflict: return "conflict";
  }
  return "internal";
}

std::string Error::describe() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (line > 0) out += ":" + std::to_string(line);
    out += ": ";
  }
  if (!key.empty()) out += key + ": ";
  out += message;
  return out;
}

}  // namespace corral
