// What the sandbox verbs share: error reporting with the right exit status, and the creation
// inputs (policy flags + where they were given) that `update` resolves again.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/policy_flags.hpp"
#include "common/result.hpp"
#include "sandbox/state.hpp"

namespace corral::cli {

// Prints "corral: MESSAGE" and returns 2 for input errors (bad name, unknown sandbox, name
// taken), 1 for everything else.
int report_sandbox_error(const Error& e);

nlohmann::json inputs_to_json(const PolicyFlags& flags, const PolicyContext& ctx);
Result<void> inputs_from_json(const nlohmann::json& j, PolicyFlags& flags, PolicyContext& ctx);

// The sandbox's workspaces from --workspace flags (the first is `policy_workspace`, already
// resolved): absolute, symlinks resolved, with their mode.
std::vector<sandbox::Workspace> workspaces_from_flags(const std::vector<std::string>& flags,
                                                      const std::string& policy_workspace,
                                                      const PolicyContext& ctx);

}  // namespace corral::cli
