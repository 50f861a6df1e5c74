// The command's environment: deny-by-default, the policy's pass-list, its set-table, then the
// caller's per-run overlay.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "policy/policy.hpp"

namespace corral {

// `host_env` is the caller's environment ("NAME=VALUE" strings). Only names the policy passes
// are taken from it (a pattern "LC_*" passes every name with that prefix); `policy.set` is
// applied next; `overlay` last. The overlay holds literal values only: it can set or replace a
// variable, but it has no way to inherit anything else from the host (seed 004's rule).
std::vector<std::string> build_child_env(const Policy::Env& policy,
                                         const std::vector<std::string>& host_env,
                                         const std::map<std::string, std::string>& overlay);

// Whether `name` matches a pass pattern ("NAME" or "PREFIX*").
bool env_name_matches(const std::string& pattern, const std::string& name);

// The calling process's environment as strings.
std::vector<std::string> current_environment();

}  // namespace corral
