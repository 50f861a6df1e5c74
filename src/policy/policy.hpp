// The policy model: plain data every layer reads and none mutates after it is resolved.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace corral {

enum class NetMode { none, allowlist, all };

const char* net_mode_name(NetMode m);

// A policy as written (by defaults, a TOML file, srt settings, CLI flags). Paths may still hold
// "~", "." (the workspace), relative paths and globs; resolve_policy() turns it into an
// EffectivePolicy. Later layers append to the lists; a flag that names a scalar overrides it.
struct Policy {
  struct Filesystem {
    std::vector<std::string> read_deny;    // unreadable inside (dir: also not writable)
    std::vector<std::string> read_allow;   // re-opens a path inside a denied one (read-only)
    std::vector<std::string> write_allow;  // writable; "." is the workspace
    std::vector<std::string> write_deny;   // read-only even inside write_allow
    std::vector<std::string> read_only;    // extra read-only binds (--ro); the host root is ro anyway
    // Record every attempt to open a read_deny path (--watch-reads). Off by default: it sends
    // every open, not just writes, through corral's seccomp monitor (~11 us each).
    bool watch_reads = false;
  } filesystem;

  struct Network {
    NetMode mode = NetMode::none;
    std::vector<std::string> allow;  // host, *.suffix, optional :port
    std::vector<std::string> deny;   // checked first
    bool allow_local_binding = false;
  } network;

  struct Env {
    std::vector<std::string> pass;            // names (or NAME_* prefixes) taken from the caller
    std::map<std::string, std::string> set;   // set inside, applied after pass
  } env;

  struct Limits {
    std::optional<std::uint64_t> memory_bytes;
    std::optional<std::uint64_t> pids;
    std::optional<double> cpus;
    std::optional<std::chrono::milliseconds> timeout;
    std::optional<std::uint64_t> output_bytes;
  } limits;

  struct Process {
    // "default", "strict", or the path of a seccomp profile file (TOML: base = "default" |
    // "strict", block = ["syscall", ...]). A relative path in a policy file is made absolute
    // against that file's directory when it is loaded; one from a flag against the caller's cwd.
    std::string seccomp = "default";
    bool allow_nested_userns = false;  // opt-in for tools that build their own sandbox
  } process;

  std::string workspace;  // directory made writable as "."; empty = the caller's cwd
  // The workspace is seen through a copy-on-write overlay: writes land in the sandbox's own
  // upper layer and the host directory is untouched (`--workspace PATH:cow`).
  bool workspace_cow = false;
};

// A policy after resolution: every path absolute, "~" and "." expanded, globs expanded against
// the host, symlinks resolved, duplicates removed, lists sorted where order does not matter.
// Two equal EffectivePolicies enforce the same thing; policy_hash() hashes this form.
struct EffectivePolicy {
  std::string workspace;                    // absolute, exists, is a directory
  bool workspace_cow = false;               // see Policy::workspace_cow
  struct Filesystem {
    std::vector<std::string> read_deny;     // existing host paths only (nothing to hide otherwise)
    std::vector<std::string> read_allow;
    std::vector<std::string> write_allow;   // includes the workspace
    std::vector<std::string> write_deny;
    // write_deny entries as named (absolute, normal) where that differs from the host path
    // above, e.g. "<ws>/.git/hooks" when .git is a symlink: the symlink on the way must stay.
    std::vector<std::string> write_deny_names;
    std::vector<std::string> read_only;
    bool watch_reads = false;
  } filesystem;
  Policy::Network network;
  Policy::Env env;
  Policy::Limits limits;
  struct Process {
    std::string seccomp = "default";       // "default", "strict" or the absolute profile path
    std::string seccomp_base = "default";  // "default" or "strict": the built-in profile used
    std::vector<std::string> seccomp_block;  // extra syscalls refused (profile file), sorted
    bool allow_nested_userns = false;
  } process;
};

}  // namespace corral
