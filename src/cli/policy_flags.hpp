// The policy flags shared by `corral run`, `corral policy show` (and later `create`), and how
// they combine with policy files and srt settings into one EffectivePolicy.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "policy/load.hpp"
#include "policy/policy.hpp"

namespace corral::cli {

struct PolicyFlags {
  std::vector<std::string> policy_files;  // --policy FILE (repeatable, applied in order)
  std::string srt_settings;               // --srt-settings FILE
  // --workspace PATH[:ro|:rw|:cow] (repeatable): the first is the workspace ("."; rw or cow),
  // later ones are extra workspaces at the same path inside, writable unless marked :ro.
  std::vector<std::string> workspaces;
  std::vector<std::string> rw;            // --rw PATH         -> filesystem.write_allow
  std::vector<std::string> ro;            // --ro PATH         -> filesystem.read_only
  std::vector<std::string> deny_read;     // --deny-read PATH  -> filesystem.read_deny
  std::vector<std::string> env;           // --env NAME (pass) or NAME=VALUE (set)
  std::string net;                        // --net none|allowlist|all
  std::vector<std::string> allow_hosts;   // --allow-host HOST -> network.allow
  std::vector<std::string> deny_hosts;    // --deny-host HOST  -> network.deny
  bool allow_local_binding = false;       // --allow-local-binding
  bool watch_reads = false;               // --watch-reads
  std::string memory, pids, cpus, timeout, output_limit;  // --memory 2GiB ... --output-limit
  std::string seccomp;                    // --seccomp default|strict|FILE -> process.seccomp
  bool allow_nested_userns = false;       // --allow-nested-userns
};

// Registers the flags on `sub`; CLI11 fills `flags`, which must outlive parsing.
void add_policy_flags(CLI::App* sub, PolicyFlags& flags);

// The caller's HOME ($HOME, else the passwd entry) and working directory.
Result<PolicyContext> policy_context_from_environment();

// Applies the flags to `policy`: lists are extended, scalars overridden. Relative paths given
// as flags are relative to `cwd` (as a shell user expects), not to the workspace. Errors carry
// the flag name as Error.key ("--memory").
Result<void> apply_policy_flags(const PolicyFlags& flags, const std::string& cwd, Policy& policy);

// defaults, then --policy files in order, then --srt-settings, then the flags; validated and
// resolved against `ctx`. `notes` receives the srt settings corral could not honour.
Result<EffectivePolicy> build_effective_policy(const PolicyFlags& flags, const PolicyContext& ctx,
                                               std::vector<std::string>& notes);
// Same, with HOME and cwd from the environment.
Result<EffectivePolicy> build_effective_policy(const PolicyFlags& flags,
                                               std::vector<std::string>& notes);

}  // namespace corral::cli
