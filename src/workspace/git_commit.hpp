// A sandbox's changes made into one commit on a new branch, without touching the user's
// working tree, index, HEAD or stash: the tree is built in memory from the base commit's tree.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "workspace/git_repo.hpp"

namespace corral::git {

// One changed path of the workspace.
struct GitChange {
  enum class Op { upsert, remove };
  std::string path;  // repo-relative, '/'-separated; no "", ".", ".." or ".git" component
  Op op = Op::upsert;
  // upsert only: the file on disk whose content and mode to take. A regular file becomes a blob
  // with mode 100644, or 100755 when its owner-execute bit is set; a symlink becomes a 120000
  // entry holding its target; a directory adds every file and symlink below it (git keeps no
  // empty directories). Other file types are refused.
  std::string source;
};

struct CommitOptions {
  GitSignature signature;  // author and committer; empty: repository config, then corral's
  bool force = false;      // replace `branch` if it exists (never the branch HEAD is on)
};

// Builds the tree of `base_commit` (hex oid or any revision) with `changes` applied — all
// removes first, then all upserts, so "remove dir a, upsert a/b" and "remove a, upsert a" both
// mean "replace". Removing a directory removes its subtree; removing a path the base does not
// have is a no-op. Upserted content goes through the repository's clean filters (.gitattributes
// eol, like `git add`). Commits the tree with parent = base and creates branch `branch` on it.
// The user's index, working tree, HEAD and stash are not read or written.
// Returns the new commit's hex oid.
// Errors: "not a git repository: PATH", "unknown ref 'BASE'", "invalid branch name 'X'",
// "branch 'X' already exists", "invalid path in change: 'P'", "cannot read source 'S' of 'P'".
// Safe to call from several threads/processes at once for different branches.
Result<std::string> commit_changes(const std::string& repo, const std::string& base_commit,
                                   const std::vector<GitChange>& changes, const std::string& branch,
                                   const std::string& message, const CommitOptions& options = {});

// Error "invalid branch name 'X'" unless `branch` is a valid short branch name.
Result<void> check_branch_name(const std::string& branch);

}  // namespace corral::git
