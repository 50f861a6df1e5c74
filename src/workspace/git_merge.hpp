// Merging a sandbox branch into a branch of the user's repository, seed 003's way: the user's
// uncommitted work (untracked files included) is stashed, the merge runs, conflicts are left in
// the working tree for the user and listed, and the stash is popped only after a merge that
// succeeded. `merge_abort` goes back to where the merge started.
#pragma once

#include <string>

#include "common/result.hpp"
#include "workspace/git_repo.hpp"
#include "workspace/git_result.hpp"

// libgit2's handle, for the detail:: functions; callers of the public API never need <git2.h>.
typedef struct git_repository git_repository;

namespace corral::git {

struct MergeOptions {
  std::string message;       // merge commit message; default "Merge branch 'BR' into INTO"
  GitSignature signature;    // for the merge commit and the stash; empty: config, then corral's
  bool fast_forward = true;  // false: always make a merge commit (git merge --no-ff); so does
                             // the repository's merge.ff=false
};

// Merges `branch` (a branch or any revision) into the local branch `into` ("" = the current
// branch) of the repository at `repo`:
//  1. takes the repository's merge lock (one corral merge at a time per repository);
//  2. refuses when a corral merge stopped on conflicts is unresolved, or a git merge, rebase,
//     cherry-pick... is in progress;
//  3. stashes a dirty working tree including untracked files;
//  4. records where it started in <git dir>/corral-merge.json (atomic) for `merge_abort`;
//  5. checks out `into` if HEAD is elsewhere;
//  6. fast-forwards when possible (unless !fast_forward), otherwise merges with a merge commit;
//  7. on success checks out the original branch again, pops the stash, forgets the record;
//     on conflicts stops with the conflict markers, the index conflicts and MERGE_HEAD in place
//     (resolve and `git commit`, or `merge_abort`), the stash kept and named in the result.
// A stash that cannot be popped after a successful merge is kept and reported in `warnings`.
// Errors (result.success == false, result.error): "not a git repository: PATH",
// "unknown ref 'X'", "cannot merge into 'X': not a local branch", "HEAD is detached ...",
// "branch 'X' is checked out in another worktree; merge there",
// "a corral merge of 'B' into 'I' is in progress in PATH ...".
GitSandboxResult merge_branch(const std::string& repo, const std::string& branch,
                              const std::string& into = "", const MergeOptions& options = {});

// Returns to where the corral merge in progress started: resets `into` to its commit before the
// merge (discarding the conflicted merge), checks out the original branch, pops the stash.
// Errors: "no corral merge in progress in PATH"; when the merge was already concluded outside
// corral (the user committed the resolution, HEAD moved) corral does not discard that commit:
// it forgets the merge and the error names the stash still holding the user's earlier work.
Result<void> merge_abort(const std::string& repo);

// True when a corral merge stopped on conflicts in `repo` and awaits resolution or abort.
Result<bool> merge_in_progress(const std::string& repo);

namespace detail {
// merge_branch on an open, locked repository; `inherited_stash` is a stash taken earlier
// (create_sandbox_branch) that is to be popped like the merge's own once it succeeds.
GitSandboxResult merge_locked(git_repository* repo, const std::string& branch,
                              const std::string& into, const MergeOptions& options,
                              const std::string& inherited_stash);
// Checks out `commit` and points HEAD at `branch` ("" = detach at `commit`).
Result<void> switch_to(git_repository* repo, const std::string& branch, const std::string& commit);
}  // namespace detail

}  // namespace corral::git
