// Building a Policy: the defaults, a TOML policy file, srt settings JSON, then resolution.
#pragma once

#include <chrono>
#include <cstdint>
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
// cannot honour are appended to `unsupported` as human-readable lines ("srt:
// network.httpProxyPort is not supported by corral and was not applied"). Malformed JSON or
// wrong types are invalid_input errors.
Result<void> merge_srt_settings_file(Policy& policy, const std::string& path,
                                     std::vector<std::string>& unsupported);
Result<void> merge_srt_settings_json(Policy& policy, const std::string& text,
                                     const std::string& origin,
                                     std::vector<std::string>& unsupported);

// Parsers shared by the TOML loader and CLI flags. Errors are invalid_input with `message` set;
// callers fill in file/line/key.
// Sizes: a decimal number (fractions allowed) and an optional case-insensitive unit B, K/KB/KiB,
// M/MB/MiB, G/GB/GiB, T/TB/TiB, every one a power of 1024 ("1G" == "1GiB"); must be > 0.
// Durations: one or more number+unit pairs, units ms, s, m, h ("1h30m", "1.5s"); must be >= 1ms.
Result<std::uint64_t> parse_size(const std::string& text);          // "2GiB", "512M", "1000"
Result<std::chrono::milliseconds> parse_duration(const std::string& text);  // "10m", "1.5s", "250ms"
Result<void> validate_host_pattern(const std::string& pattern);     // host | *.suffix [:port]
Result<void> validate_path_pattern(const std::string& pattern);     // path with optional glob
Result<void> validate_env_name(const std::string& name);            // NAME or NAME_* prefix
Result<std::uint64_t> parse_pids(const std::string& text);          // "512": 1..4194304
Result<std::uint64_t> check_pids(std::int64_t n);                   // same rule, from an integer
Result<double> parse_cpus(const std::string& text);                 // "1.5": >= 0.01, finite
Result<double> check_cpus(double n);                                // same rule, from a number
Result<NetMode> parse_net_mode(const std::string& text);            // none | allowlist | all
// True when `pattern` holds glob syntax (*, ?, [ or a backslash escape) and is expanded
// against the host at resolution; false for a plain path.
bool is_glob_pattern(const std::string& pattern);

// A seccomp profile file (process.seccomp = "path"): `base` = "default" | "strict" (default
// "default") and `block` = ["syscall", ...], extra syscalls refused on top of the base. Unknown
// keys, wrong types and syscall names libseccomp does not know are invalid_input errors
// carrying the file, line and key ("block[2]"); a missing file is not_found.
struct SeccompProfile {
  std::string base = "default";
  std::vector<std::string> block;  // as written, in order
};
Result<SeccompProfile> load_seccomp_profile_file(const std::string& path);
Result<SeccompProfile> parse_seccomp_profile_toml(const std::string& text,
                                                  const std::string& origin);
// True for the built-in process.seccomp values "default" and "strict" (anything else is a path).
bool is_builtin_seccomp_profile(const std::string& value);

// Checks every field's syntax and the cross-field rules (e.g. network.allow without mode
// allowlist) without touching disk. Keys name the list entry ("filesystem.read_deny[3]").
Result<void> validate_policy(const Policy& policy);

// Validates, then expands and resolves every path; fails when the workspace does not exist or
// is not a directory. "~" is ctx.home; relative entries are below the workspace; globs are
// expanded against the host; existing paths are realpath'd. read_deny, read_allow and read_only
// keep only existing paths; a write_allow entry that does not exist is a not_found error (a
// glob matching nothing is not); write_deny keeps missing paths (canonical parent + rest). The
// workspace is always in write_allow, and a writable path inside a read-denied one is refused
// unless read_allow re-opens it. Lists, hosts (lowercased) and env.pass are deduped and sorted.
Result<EffectivePolicy> resolve_policy(const Policy& policy, const PolicyContext& ctx);

}  // namespace corral
