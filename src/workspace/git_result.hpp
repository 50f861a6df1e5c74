// GitSandboxResult: what a merge or sandbox-branch operation did (seed 003's result type), and
// its JSON form for `corral merge --json`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace corral::git {

enum class MergeOutcome {
  none,          // no merge happened (failure, or a create/cleanup operation)
  up_to_date,    // `into` already contained the branch
  fast_forward,  // `into` moved forward to the branch
  merge_commit,  // a merge commit was made
  conflicts,     // stopped with conflicts for the user to resolve (or `merge_abort`)
};
const char* merge_outcome_name(MergeOutcome outcome);

// For the CLI: success -> exit 0; has_conflicts -> exit 1 (print conflicted_files);
// error with error_code invalid_input or not_found -> exit 2 (usage/input); other errors -> 1.
struct GitSandboxResult {
  bool success = false;         // false on error and on conflicts
  std::string branch;           // the sandbox branch merged (or created / cleaned up)
  std::string original_branch;  // the branch HEAD was on when the operation started; "" if detached
  std::string into;             // the branch merged into
  std::string stash_id;         // oid of the stash holding the user's uncommitted work; "" if none
  bool stash_restored = false;  // the stash was popped back into the working tree
  bool has_conflicts = false;
  std::vector<std::string> conflicted_files;  // repo-relative, sorted
  MergeOutcome outcome = MergeOutcome::none;
  std::string merged_commit;          // hex oid `into` points at after a successful merge
  std::string error;                  // set when !success && !has_conflicts
  Errc error_code = Errc::internal;   // meaningful only when `error` is set (for exit statuses)
  std::vector<std::string> warnings;  // things the user should know even on success

  static GitSandboxResult failure(Error e);
};

// {"success", "branch", "original_branch", "into", "stash_id" (null if none), "stash_restored",
//  "has_conflicts", "conflicted_files", "outcome", "merged_commit" (null if none),
//  "error" (null if none), "error_code" (null if none), "warnings"}.
nlohmann::ordered_json to_json(const GitSandboxResult& result);

}  // namespace corral::git
