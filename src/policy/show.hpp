// Presenting an EffectivePolicy: canonical JSON, human text, and a stable hash.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "policy/policy.hpp"

namespace corral {

// Canonical JSON: fixed key order (workspace, filesystem, network, env, limits, as in the
// model), all fields present (null for unset limits). ordered_json keeps that order; it
// converts to nlohmann::json (whose keys sort) where a caller needs one. Strings that are not
// valid UTF-8 have their stray bytes written as "\xNN" so dumping never throws.
nlohmann::ordered_json policy_to_json(const EffectivePolicy& policy);
// "sha256:<hex>" of the canonical JSON's compact dump. Stable across runs and machines.
std::string policy_hash(const EffectivePolicy& policy);

// Paths are bytes; JSON strings are UTF-8: stray bytes become "\xNN" text (never an exception
// when the JSON is dumped).
std::string json_text(const std::string& s);
// Human-readable multi-line summary for `corral policy show`.
std::string policy_to_text(const EffectivePolicy& policy);

}  // namespace corral
