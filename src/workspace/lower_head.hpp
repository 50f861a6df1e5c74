// The commit a workspace's host directory had checked out when a layer was created, read from
// .git/HEAD and the refs (loose or packed) without libgit2: a few small reads, O(1).
#pragma once

#include <optional>
#include <string>

namespace corral::workspace {

// The 40-hex HEAD commit of the git repository whose work tree is `dir` (a .git directory, or
// a .git file pointing at one as in worktrees); nullopt when `dir` is no repository root or
// HEAD is unborn.
std::optional<std::string> read_git_head(const std::string& dir);

}  // namespace corral::workspace
