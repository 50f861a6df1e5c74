// GitSandboxResult helpers and JSON rendering.
#include "workspace/git_result.hpp"

namespace corral::git {

const char* merge_outcome_name(MergeOutcome outcome) {
  switch (outcome) {
    case MergeOutcome::none: return "none";
    case MergeOutcome::up_to_date: return "up_to_date";
    case MergeOutcome::fast_forward: return "fast_forward";
    case MergeOutcome::merge_commit: return "merge_commit";
    case MergeOutcome::conflicts: return "conflicts";
  }
  return "none";
}

GitSandboxResult GitSandboxResult::failure(Error e) {
  GitSandboxResult r;
  r.success = false;
  r.error = e.message;  // messages already name the repository, branch or ref
  r.error_code = e.code;
  return r;
}

nlohmann::ordered_json to_json(const GitSandboxResult& r) {
  auto or_null = [](const std::string& s) {
    return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
  };
  nlohmann::ordered_json j;
  j["success"] = r.success;
  j["branch"] = or_null(r.branch);
  j["original_branch"] = or_null(r.original_branch);
  j["into"] = or_null(r.into);
  j["stash_id"] = or_null(r.stash_id);
  j["stash_restored"] = r.stash_restored;
  j["has_conflicts"] = r.has_conflicts;
  j["conflicted_files"] = r.conflicted_files;
  j["outcome"] = merge_outcome_name(r.outcome);
  j["merged_commit"] = or_null(r.merged_commit);
  j["error"] = or_null(r.error);
  j["error_code"] = r.error.empty() ? nlohmann::ordered_json(nullptr)
                                    : nlohmann::ordered_json(errc_name(r.error_code));
  j["warnings"] = r.warnings;
  return j;
}

}  // namespace corral::git
