// Building a Policy: the defaults, a TOML policy file, srt settings JSON, then resolution.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "policy/policy.hpp"

namespace corral {

// What resolution needs to know about the caller.
struct PolicyContext {
  std::string home;  // caller's $HOME (absolute); "~" expands to it
  std::string cwd;   // caller's working directory (absolute); default workspace
};

// DESIGN.md's default policy: secrets denied, workspace writable, env allow-list, no network.
Policy default_policy();

// Merges a TOML policy file (DESIGN.md format) into `policy`: lists are appended, scalars
// replaced. Unknown keys, wrong types, bad sizes/durations, bad globs and bad host patterns are
// Errc::invalid_input errors carrying file, line and the dotted key ("limits.memory").
Result<void> merge_policy_file(Policy& policy, const std::string& path);
// Same, from a string (tests); `origin` is used as the file name in errors.
Result<void> merge_policy_toml(Policy& policy, const std::string& text, const std::string& origin);

// Merges an Anthropic sandbox-runtime settings JSON. Keys corral honours are merged; keys it
// cannot honour are appended to `unsupported` as human-readable lines ("network.httpProxyPort:
// not supported, ignored"). Malformed JSON or wrong types are invalid_input errors.
Result<void> merge_srt_settings_file(Policy& policy, const std::string& path,
                                     std::vector<std::string>& unsupported);
Result<void> merge_srt_settings_json(Policy& policy, const std::string& text,
                                     const std::string& origin,
                                     std::vector<std::string>& unsupported);

// Parsers shared by the TOML loader and CLI flags. Errors are invalid_input with `message` set;
// callers fill in file/line/key.
Result<std::uint64_t> parse_size(const std::string& text);          // "2GiB", "512M", "1000"
Result<std::chrono::milliseconds> parse_duration(const std::string& text);  // "10m", "1.5s", "250ms"
Result<void> validate_host_pattern(const std::string& pattern);     // host | *.suffix [:port]
Result<void> validate_path_pattern(const std::string& pattern);     // path with optional glob
Result<void> validate_env_name(const std::string& name);            // NAME or NAME_* prefix

// Checks cross-field rules (e.g. network.allow without mode allowlist) without touching disk.
Result<void> validate_policy(const Policy& policy);

// Expands and resolves every path; fails when the workspace does not exist or is not a directory.
Result<EffectivePolicy> resolve_policy(const Policy& policy, const PolicyContext& ctx);

}  // namespace corral
