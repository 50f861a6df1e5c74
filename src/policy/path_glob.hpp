// Host-side path helpers for resolution: lexical normalization, symlink resolution and glob
// expansion (glob(3) per segment, plus "**" for any number of directories).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace corral::policy_paths {

// "/a/./b/../c/" -> "/a/c". Lexical only: no file system access.
std::string normalize(const std::string& absolute_path);

// `path` with glob(3) metacharacters and backslashes escaped, so it matches only itself.
std::string glob_escape(const std::string& path);

// realpath(3) of an existing path; nullopt when it (or a symlink's target) does not exist or
// cannot be reached.
std::optional<std::string> canonical_existing(const std::string& path);

// Like canonical_existing, but a missing tail is kept: the deepest existing ancestor is
// resolved and the rest appended ("/ws/.git/hooks" with no .git -> "<realpath /ws>/.git/hooks").
std::string canonical_maybe_missing(const std::string& path);

// Existing paths matching an absolute glob pattern (glob(3) syntax; "*" does not match a
// leading "."). A whole "**" component matches zero or more directories, hidden ones included,
// without following symlinks; a trailing "**" matches every entry below the directory.
// Fails when "**" would walk or match more than `max_paths` paths: such a pattern is a mistake.
Result<std::vector<std::string>> expand_glob(const std::string& absolute_pattern,
                                             std::size_t max_paths = 10000);

// True when `path` is `ancestor` or lies below it (both absolute and normalized).
bool is_within(const std::string& path, const std::string& ancestor);

}  // namespace corral::policy_paths
