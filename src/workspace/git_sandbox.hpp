// Seed 003's git-branch sandbox as a library: create a branch for an agent to work on in the
// user's own working tree (the user's work stashed meanwhile), merge it back with a conflict
// list, clean it up. corral's own sandboxes use copy-on-write workspaces and commit_changes
// instead; this is for callers that want teaagent's in-place flow.
#pragma once

#include <string>

#include "common/result.hpp"
#include "workspace/git_merge.hpp"
#include "workspace/git_repo.hpp"
#include "workspace/git_result.hpp"

namespace corral::git {

struct SandboxBranchOptions {
  std::string prefix = "corral-sandbox";  // the branch is PREFIX-YYYYMMDD-HHMMSS-XXXX ...
  std::string name;                       // ... unless named here
  GitSignature signature;                 // for the stash
};

// Under the repository's merge lock: stashes the user's uncommitted work (untracked files
// included), creates the sandbox branch at HEAD and checks it out.
// result: success, branch, original_branch, stash_id ("" when the tree was clean).
// Errors: "not a git repository: PATH", "branch 'X' already exists", "invalid branch name 'X'",
// "HEAD is detached in PATH ...", "a corral merge ... is in progress ...".
GitSandboxResult create_sandbox_branch(const std::string& repo,
                                       const SandboxBranchOptions& options = {});

// Merges the sandbox branch `created.branch` back into `created.original_branch`: refuses
// uncommitted changes on the sandbox branch, checks out the original branch, then merge_branch
// with the stash taken by create_sandbox_branch popped on success (kept on conflicts; then
// `merge_abort` returns to the original branch and pops it).
GitSandboxResult merge_sandbox_branch(const std::string& repo, const GitSandboxResult& created,
                                      const MergeOptions& options = {});

// Deletes the sandbox branch, merged or not. Errors: "branch 'X' does not exist",
// "branch 'X' is checked out in PATH".
Result<void> cleanup_sandbox_branch(const std::string& repo, const std::string& branch);

}  // namespace corral::git
