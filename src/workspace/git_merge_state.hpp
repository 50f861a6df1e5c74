// Internal to src/workspace/git_*: the per-repository merge lock and the record of where a
// corral merge started (so `merge_abort` can go back there, even after a crash).
#pragma once

#include <git2.h>

#include <optional>
#include <string>

#include "common/result.hpp"
#include "linux/fd.hpp"

namespace corral::git::detail {

// An exclusive flock(2) on <common git dir>/corral-merge.lock, held while the object lives.
// Taken around merges and sandbox-branch switches only, never while agents work, so sandboxes
// committing to their own branches never wait for each other. Blocks until the lock is free.
class MergeLock {
 public:
  static Result<MergeLock> acquire(git_repository* repo);

 private:
  explicit MergeLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

// <git dir>/corral-merge.json, written atomically when a merge starts and removed when it ends.
struct MergeState {
  std::string branch;           // what is being merged
  std::string into;             // the branch merged into
  std::string original_branch;  // where HEAD was ("" = detached) ...
  std::string original_head;    // ... at which commit
  std::string into_before;      // `into`'s commit before the merge
  std::string stash_id;         // the user's work put aside for the merge, "" if none
};

Result<std::optional<MergeState>> read_merge_state(git_repository* repo);
Result<void> write_merge_state(git_repository* repo, const MergeState& state);
Result<void> remove_merge_state(git_repository* repo);

}  // namespace corral::git::detail
