// The user's uncommitted work put aside and restored (git stash), by stash oid.
// A stash is named by its commit oid, not "stash@{0}": the selector shifts whenever anyone else
// stashes, the oid does not.
#pragma once

#include <string>

#include "common/result.hpp"
#include "workspace/git_repo.hpp"

// libgit2's handle, for the detail:: functions; callers of the public API never need <git2.h>.
typedef struct git_repository git_repository;

namespace corral::git {

// Stashes staged and unstaged changes (and untracked files when `include_untracked`; ignored
// files never) like `git stash push [-u] -m MESSAGE`, leaving the working tree clean.
// Returns the stash's oid. Error (Errc::not_found) "nothing to stash in PATH" when clean.
Result<std::string> stash_save(const std::string& repo, const std::string& message,
                               bool include_untracked, const GitSignature& signature = {});

// Re-applies the stash `stash_id` (an oid from stash_save; "" means the newest) including
// what was staged, then drops it. When it cannot apply cleanly (it conflicts with the working
// tree) nothing is changed and the stash is kept; the error names it.
// Errors: "no stash <id> in PATH", "stash <id> conflicts with the working tree of PATH ...".
Result<void> stash_pop(const std::string& repo, const std::string& stash_id = "");

namespace detail {
// The same on an open repository (used by merges, which hold the repository open).
Result<std::string> stash_save_in(git_repository* repo, const std::string& message,
                                  bool include_untracked, const GitSignature& signature);
Result<void> stash_pop_in(git_repository* repo, const std::string& stash_id);
// True when `stash_id` is still in the stash list.
bool stash_exists_in(git_repository* repo, const std::string& stash_id);
}  // namespace detail

}  // namespace corral::git
