// Builds the child's environment from the policy and a per-run overlay.
#include "enforce/env.hpp"

#include <algorithm>

extern char** environ;

namespace corral {

bool env_name_matches(const std::string& pattern, const std::string& name) {
  if (!pattern.empty() && pattern.back() == '*')
    return name.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
  return pattern == name;
}

std::vector<std::string> build_child_env(const Policy::Env& policy,
                                         const std::vector<std::string>& host_env,
                                         const std::map<std::string, std::string>& overlay) {
  std::map<std::string, std::string> env;
  for (const auto& entry : host_env) {
    auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = entry.substr(0, eq);
    bool passed = std::any_of(policy.pass.begin(), policy.pass.end(),
                              [&](const std::string& p) { return env_name_matches(p, name); });
    if (passed) env.emplace(name, entry.substr(eq + 1));  // first wins, as getenv() does
  }
  for (const auto& [k, v] : policy.set) env[k] = v;
  for (const auto& [k, v] : overlay) env[k] = v;
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) out.emplace_back(*e);
  return out;
}

}  // namespace corral
