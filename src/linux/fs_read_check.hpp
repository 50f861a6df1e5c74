// Reads of denied paths: an open that reaches a read_deny mask (an empty mode-000 file or
// directory mounted over the real one) fails or reads nothing; the monitor names the attempt.
#pragma once

#include <string>

#include "linux/caller_view.hpp"
#include "linux/fs_guard.hpp"

namespace corral {

// The read_deny path that an open of `path` (absolute, normal, final symlinks already
// followed) reaches in the caller's view, or "" if none. By path first (the deepest of
// read_deny and read_allow above it decides, as the mounts do); then, for other names of the
// same place (symlinks, ".."), by the identity of the file or of the nearest directory the
// monitor can reach on its way.
std::string read_deny_reached(const Caller& c, const std::string& path, const FsGuard& guard);

}  // namespace corral
