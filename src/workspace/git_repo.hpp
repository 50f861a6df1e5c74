// Questions about a git repository (libgit2): is it one, is its working tree clean, where is HEAD.
// Every function takes a path inside the repository's working tree (or the repository itself)
// and opens it afresh, so they can be called from any thread.
#pragma once

#include <string>

#include "common/result.hpp"

namespace corral::git {

// Who a commit, merge or stash is by. Empty fields mean: from the repository's config
// (user.name / user.email), falling back to "corral <corral@localhost>".
struct GitSignature {
  std::string name;
  std::string email;
};

// True when `path` is inside a git repository (its working tree or its git directory).
// False, not an error, when it is not; an error only when the repository cannot be read.
Result<bool> is_git_repository(const std::string& path);

// True when nothing is staged, modified, deleted or untracked (ignored files do not count).
// Error "not a git repository: PATH" outside a repository; bare repositories are refused.
Result<bool> is_worktree_clean(const std::string& repo);

// The full hex oid of the commit HEAD points at (the cow workspace records it when a sandbox
// starts, as the parent for `commit_changes`). Error when HEAD is unborn (no commit yet).
Result<std::string> head_commit(const std::string& repo);

// The short name of the branch HEAD is on ("main"); "" when HEAD is detached. The name of the
// unborn branch in a repository without commits.
Result<std::string> current_branch(const std::string& repo);

// The top directory of the working tree containing `path` (symlinks resolved, no trailing '/').
Result<std::string> worktree_root(const std::string& path);

// Where `path` lies inside its repository's working tree, '/'-terminated ("" for the top, "src/"
// for a subdirectory): the prefix that turns paths relative to a workspace started in a
// subdirectory into the repo-relative paths GitChange needs. Error when `path` is not inside
// a working tree.
Result<std::string> path_in_worktree(const std::string& path);

}  // namespace corral::git
