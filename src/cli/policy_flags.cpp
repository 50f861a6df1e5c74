// The policy flags of `corral run` / `corral policy show`, and the one place that layers
// defaults, policy files, srt settings and flags into an EffectivePolicy.
#include "cli/policy_flags.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace corral::cli {
namespace {

constexpr const char* kGroup = "Policy";

Error flag_error(const std::string& flag, const Error& cause) {
  Error e = make_error(Errc::invalid_input, cause.message);
  e.key = flag;
  return e;
}

Error flag_error(const std::string& flag, std::string message) {
  return flag_error(flag, make_error(Errc::invalid_input, std::move(message)));
}

// A path flag relative to the caller's cwd, made absolute now so resolution (which puts
// relative policy paths under the workspace) leaves it where the user pointed.
std::string from_cwd(const std::string& pattern, const std::string& cwd) {
  if (pattern.empty() || pattern[0] == '/' || pattern[0] == '~') return pattern;
  std::string base = cwd;
  if (is_glob_pattern(pattern)) {
    base.clear();
    for (char c : cwd) {
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') base += '\\';
      base += c;
    }
  }
  return (base == "/" ? "" : base) + "/" + pattern;
}

Result<void> add_paths(const std::vector<std::string>& values, const char* flag,
                       const std::string& cwd, std::vector<std::string>& out) {
  for (const std::string& v : values) {
    if (auto r = validate_path_pattern(v); !r) return flag_error(flag, r.error());
    out.push_back(from_cwd(v, cwd));
  }
  return {};
}

Result<void> add_hosts(const std::vector<std::string>& values, const char* flag,
                       std::vector<std::string>& out) {
  for (const std::string& v : values) {
    if (auto r = validate_host_pattern(v); !r) return flag_error(flag, r.error());
    out.push_back(v);
  }
  return {};
}

struct WorkspaceFlag {
  std::string path;
  std::string mode;  // "", "ro", "rw" or "cow"
};

// "PATH[:ro|:rw|:cow]": only a trailing known mode is split off, so a path with a colon in it
// still works ("a:b" is the path "a:b").
WorkspaceFlag split_workspace_flag(const std::string& value) {
  for (const char* mode : {"ro", "rw", "cow"}) {
    std::string suffix = std::string(":") + mode;
    if (value.size() > suffix.size() && value.ends_with(suffix))
      return {value.substr(0, value.size() - suffix.size()), mode};
  }
  return {value, ""};
}

Result<void> add_workspaces(const std::vector<std::string>& values, const std::string& cwd,
                            Policy& p) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    WorkspaceFlag w = split_workspace_flag(values[i]);
    if (auto r = validate_path_pattern(w.path); !r) return flag_error("--workspace", r.error());
    if (is_glob_pattern(w.path))
      return flag_error("--workspace", "\"" + values[i] +
                                           "\": a workspace must be one directory, not a glob pattern");
    std::string path = w.path[0] == '~' ? w.path : from_cwd(w.path, cwd);
    if (i == 0) {
      if (w.mode == "ro")
        return flag_error("--workspace",
                          "\"" + values[i] +
                              "\": the first workspace is the writable one; mark only extra "
                              "workspaces :ro (or use --ro PATH)");
      p.workspace = path;
      p.workspace_cow = w.mode == "cow";
    } else if (w.mode == "cow") {
      return flag_error("--workspace", "\"" + values[i] +
                                           "\": only the first workspace can be copy-on-write");
    } else if (w.mode == "ro") {
      p.filesystem.read_only.push_back(path);
    } else {
      p.filesystem.write_allow.push_back(path);
    }
  }
  return {};
}

Result<void> add_env(const std::vector<std::string>& values, Policy::Env& env) {
  for (const std::string& v : values) {
    std::size_t eq = v.find('=');
    std::string name = v.substr(0, eq);
    if (auto r = validate_env_name(name); !r) return flag_error("--env", r.error());
    if (eq == std::string::npos) {
      env.pass.push_back(name);
    } else {
      if (name.back() == '*')
        return flag_error("--env",
                          "\"" + v + "\": a prefix pattern cannot be set; name one variable");
      env.set[name] = v.substr(eq + 1);
    }
  }
  return {};
}

}  // namespace

void add_policy_flags(CLI::App* sub, PolicyFlags& f) {
  auto repeatable = [&](const char* name, std::vector<std::string>& into, const char* type,
                        const char* help) {
    sub->add_option(name, into, help)->type_name(type)->allow_extra_args(false)->group(kGroup);
  };
  auto single = [&](const char* name, std::string& into, const char* type, const char* help) {
    sub->add_option(name, into, help)->type_name(type)->group(kGroup);
  };
  repeatable("--policy", f.policy_files, "FILE",
             "TOML policy file, applied over the defaults (repeatable, in order)");
  single("--srt-settings", f.srt_settings, "FILE",
         "sandbox-runtime (srt) settings JSON, applied after the policy files");
  repeatable("--workspace", f.workspaces, "DIR[:ro|:cow]",
             "workspace (default: current directory); the first is writable (:cow: through a "
             "copy-on-write layer), later ones are extra workspaces, read-only when marked :ro");
  repeatable("--rw", f.rw, "PATH", "make PATH writable (repeatable)");
  repeatable("--ro", f.ro, "PATH", "bind PATH read-only (repeatable)");
  repeatable("--deny-read", f.deny_read, "PATH", "make PATH unreadable (repeatable)");
  sub->add_flag("--watch-reads", f.watch_reads,
                "record every attempt to open a read_deny path (each open then costs ~11 us)")
      ->group(kGroup);
  repeatable("--env", f.env, "NAME[=VALUE]",
             "pass NAME (or a prefix like LC_*) from the caller, or set NAME=VALUE (repeatable)");
  sub->add_option("--net", f.net, "network: none, allowlist or all")
      ->type_name("MODE")
      ->check(CLI::IsMember({"none", "allowlist", "all"}))
      ->group(kGroup);
  repeatable("--allow-host", f.allow_hosts, "HOST",
             "allow HOST, *.SUFFIX, optional :PORT (repeatable; implies --net allowlist)");
  repeatable("--deny-host", f.deny_hosts, "HOST",
             "deny HOST, checked before allows (repeatable; implies --net allowlist)");
  sub->add_flag("--allow-local-binding", f.allow_local_binding,
                "allow binding local ports inside the sandbox")
      ->group(kGroup);
  single("--memory", f.memory, "SIZE", "memory limit, e.g. 2GiB (units are powers of 1024)");
  single("--pids", f.pids, "N", "maximum number of processes and threads");
  single("--cpus", f.cpus, "N", "CPU limit in CPUs, e.g. 1.5");
  single("--timeout", f.timeout, "DURATION", "wall-clock limit, e.g. 30s, 10m, 1h30m");
  single("--output-limit", f.output_limit, "SIZE", "limit on captured output, e.g. 64MiB");
  single("--seccomp", f.seccomp, "PROFILE",
         "seccomp profile: default, strict, or a profile file (TOML: base, block)");
  sub->add_flag("--allow-nested-userns", f.allow_nested_userns,
                "let the command create its own user namespaces (e.g. a browser's sandbox)")
      ->group(kGroup);
}

Result<PolicyContext> policy_context_from_environment() {
  PolicyContext ctx;
  if (const char* home = std::getenv("HOME"); home && home[0] == '/') {
    ctx.home = home;
  } else if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir) {
    ctx.home = pw->pw_dir;
  }
  if (ctx.home.empty())
    return make_error(Errc::invalid_input,
                      "cannot tell the home directory: set HOME to an absolute path");
  std::vector<char> buf(4096);
  while (::getcwd(buf.data(), buf.size()) == nullptr) {
    if (errno != ERANGE)
      return make_error(Errc::io_error,
                        std::string("cannot get the current directory: ") + std::strerror(errno));
    buf.resize(buf.size() * 2);
  }
  ctx.cwd = buf.data();
  return ctx;
}

Result<void> apply_policy_flags(const PolicyFlags& f, const std::string& cwd, Policy& p) {
  if (auto r = add_workspaces(f.workspaces, cwd, p); !r) return r;
  if (auto r = add_paths(f.rw, "--rw", cwd, p.filesystem.write_allow); !r) return r;
  if (auto r = add_paths(f.ro, "--ro", cwd, p.filesystem.read_only); !r) return r;
  if (auto r = add_paths(f.deny_read, "--deny-read", cwd, p.filesystem.read_deny); !r) return r;
  if (auto r = add_env(f.env, p.env); !r) return r;

  if (auto r = add_hosts(f.allow_hosts, "--allow-host", p.network.allow); !r) return r;
  if (auto r = add_hosts(f.deny_hosts, "--deny-host", p.network.deny); !r) return r;
  if (!f.allow_hosts.empty() || !f.deny_hosts.empty()) p.network.mode = NetMode::allowlist;
  if (!f.net.empty()) {
    auto mode = parse_net_mode(f.net);
    if (!mode) return flag_error("--net", mode.error());
    p.network.mode = *mode;
  }
  if (f.allow_local_binding) p.network.allow_local_binding = true;
  if (f.watch_reads) p.filesystem.watch_reads = true;

  if (!f.memory.empty()) {
    auto n = parse_size(f.memory);
    if (!n) return flag_error("--memory", n.error());
    p.limits.memory_bytes = *n;
  }
  if (!f.pids.empty()) {
    auto n = parse_pids(f.pids);
    if (!n) return flag_error("--pids", n.error());
    p.limits.pids = *n;
  }
  if (!f.cpus.empty()) {
    auto n = parse_cpus(f.cpus);
    if (!n) return flag_error("--cpus", n.error());
    p.limits.cpus = *n;
  }
  if (!f.timeout.empty()) {
    auto d = parse_duration(f.timeout);
    if (!d) return flag_error("--timeout", d.error());
    p.limits.timeout = *d;
  }
  if (!f.output_limit.empty()) {
    auto n = parse_size(f.output_limit);
    if (!n) return flag_error("--output-limit", n.error());
    p.limits.output_bytes = *n;
  }
  if (!f.seccomp.empty()) {
    if (f.seccomp.find('\0') != std::string::npos)
      return flag_error("--seccomp", "expected default, strict or a profile file's path");
    // A profile path is a plain path (no globs), relative to the caller's cwd.
    const bool relative = !is_builtin_seccomp_profile(f.seccomp) && f.seccomp[0] != '/' &&
                          f.seccomp[0] != '~';
    p.process.seccomp = relative ? (cwd == "/" ? "" : cwd) + "/" + f.seccomp : f.seccomp;
  }
  if (f.allow_nested_userns) p.process.allow_nested_userns = true;
  return {};
}

Result<EffectivePolicy> build_effective_policy(const PolicyFlags& flags, const PolicyContext& ctx,
                                               std::vector<std::string>& notes) {
  Policy policy = default_policy();
  for (const std::string& file : flags.policy_files) {
    if (auto r = merge_policy_file(policy, file); !r) return r.error();
  }
  if (!flags.srt_settings.empty()) {
    if (auto r = merge_srt_settings_file(policy, flags.srt_settings, notes); !r) return r.error();
  }
  if (auto r = apply_policy_flags(flags, ctx.cwd, policy); !r) return r.error();
  return resolve_policy(policy, ctx);  // validates first
}

Result<EffectivePolicy> build_effective_policy(const PolicyFlags& flags,
                                               std::vector<std::string>& notes) {
  auto ctx = policy_context_from_environment();
  if (!ctx) return ctx.error();
  return build_effective_policy(flags, *ctx, notes);
}

}  // namespace corral::cli
