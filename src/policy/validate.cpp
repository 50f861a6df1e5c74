// validate_policy(): every field's syntax and the rules between fields, without touching disk.
// Loaders check entries as they read them (with file and line); this is the final gate for a
// Policy however it was built (files, srt settings, flags, API requests).
#include "policy/load.hpp"

namespace corral {
namespace {

Error invalid_key(std::string key, Error cause) {
  cause.code = Errc::invalid_input;
  cause.key = std::move(key);
  return cause;
}

Error invalid_key(std::string key, std::string message) {
  return invalid_key(std::move(key), make_error(Errc::invalid_input, std::move(message)));
}

std::string indexed(const std::string& key, std::size_t i) {
  return key + "[" + std::to_string(i) + "]";
}

Result<void> validate_paths(const std::vector<std::string>& paths, const std::string& key) {
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (auto r = validate_path_pattern(paths[i]); !r)
      return invalid_key(indexed(key, i), r.error());
  }
  return {};
}

Result<void> validate_hosts(const std::vector<std::string>& hosts, const std::string& key) {
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (auto r = validate_host_pattern(hosts[i]); !r)
      return invalid_key(indexed(key, i), r.error());
  }
  return {};
}

}  // namespace

Result<void> validate_policy(const Policy& p) {
  if (!p.workspace.empty()) {
    if (auto r = validate_path_pattern(p.workspace); !r) return invalid_key("workspace", r.error());
    if (is_glob_pattern(p.workspace))
      return invalid_key(
          "workspace",
          "\"" + p.workspace + "\" is a glob pattern; the workspace must be one directory");
  }

  const auto& fs = p.filesystem;
  for (auto [list, key] : {std::pair{&fs.read_deny, "filesystem.read_deny"},
                           std::pair{&fs.read_allow, "filesystem.read_allow"},
                           std::pair{&fs.write_allow, "filesystem.write_allow"},
                           std::pair{&fs.write_deny, "filesystem.write_deny"},
                           std::pair{&fs.read_only, "filesystem.read_only"}}) {
    if (auto r = validate_paths(*list, key); !r) return r;
  }

  if (auto r = validate_hosts(p.network.allow, "network.allow"); !r) return r;
  if (auto r = validate_hosts(p.network.deny, "network.deny"); !r) return r;
  if (!p.network.allow.empty() && p.network.mode != NetMode::allowlist)
    return invalid_key(
        "network.allow",
        std::string("hosts are listed but network.mode is \"") + net_mode_name(p.network.mode) +
            "\"; set network.mode = \"allowlist\" (or --net allowlist) for them to take effect");

  for (std::size_t i = 0; i < p.env.pass.size(); ++i) {
    if (auto r = validate_env_name(p.env.pass[i]); !r)
      return invalid_key(indexed("env.pass", i), r.error());
  }
  for (const auto& [name, value] : p.env.set) {
    if (auto r = validate_env_name(name); !r) return invalid_key("env.set." + name, r.error());
    if (name.back() == '*')
      return invalid_key("env.set." + name, "a prefix pattern cannot be set; name one variable");
    if (value.find('\0') != std::string::npos)
      return invalid_key("env.set." + name, "the value contains a NUL byte");
  }

  const auto& lim = p.limits;
  if (lim.memory_bytes && *lim.memory_bytes == 0)
    return invalid_key("limits.memory", "must be greater than zero");
  if (lim.pids) {
    if (*lim.pids > static_cast<std::uint64_t>(INT64_MAX))
      return invalid_key("limits.pids", "too large");
    if (auto r = check_pids(static_cast<std::int64_t>(*lim.pids)); !r)
      return invalid_key("limits.pids", r.error());
  }
  if (lim.cpus) {
    if (auto r = check_cpus(*lim.cpus); !r) return invalid_key("limits.cpus", r.error());
  }
  if (lim.timeout && lim.timeout->count() <= 0)
    return invalid_key("limits.timeout", "must be at least 1ms");
  if (lim.output_bytes && *lim.output_bytes == 0)
    return invalid_key("limits.output", "must be greater than zero");
  if (p.process.seccomp.empty() || p.process.seccomp.find('\0') != std::string::npos)
    return invalid_key("process.seccomp",
                       "expected default, strict or the path of a seccomp profile file");
  return {};
}

}  // namespace corral
