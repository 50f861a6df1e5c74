// Reading back the effective policy a sandbox stored in its state (policy_to_json's form), so
// `start` rebuilds exactly what `create` resolved, without re-reading policy files.
#pragma once

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "policy/policy.hpp"

namespace corral::sandbox {

Result<EffectivePolicy> policy_from_json(const nlohmann::json& j);

}  // namespace corral::sandbox
