// Presenting an EffectivePolicy: canonical JSON, human text, and a stable hash.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "policy/policy.hpp"

namespace corral {

// Canonical JSON: fixed key order, all fields present (null for unset limits).
nlohmann::json policy_to_json(const EffectivePolicy& policy);
// "sha256:<hex>" of the canonical JSON's compact dump. Stable across runs and machines.
std::string policy_hash(const EffectivePolicy& policy);
// Human-readable multi-line summary for `corral policy show`.
std::string policy_to_text(const EffectivePolicy& policy);

}  // namespace corral
