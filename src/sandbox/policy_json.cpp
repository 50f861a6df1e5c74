// The inverse of policy_to_json() for the fields an EffectivePolicy has.
#include "sandbox/policy_json.hpp"

#include "policy/load.hpp"

namespace corral::sandbox {

Result<EffectivePolicy> policy_from_json(const nlohmann::json& j) {
  try {
    EffectivePolicy p;
    p.workspace = j.at("workspace").get<std::string>();
    p.workspace_cow = j.value("workspace_cow", false);
    const auto& fs = j.at("filesystem");
    p.filesystem.read_deny = fs.at("read_deny").get<std::vector<std::string>>();
    p.filesystem.read_allow = fs.at("read_allow").get<std::vector<std::string>>();
    p.filesystem.write_allow = fs.at("write_allow").get<std::vector<std::string>>();
    p.filesystem.write_deny = fs.at("write_deny").get<std::vector<std::string>>();
    p.filesystem.write_deny_names =
        fs.value("write_deny_names", std::vector<std::string>{});
    p.filesystem.read_only = fs.at("read_only").get<std::vector<std::string>>();
    p.filesystem.watch_reads = fs.value("watch_reads", false);
    const auto& net = j.at("network");
    auto mode = parse_net_mode(net.at("mode").get<std::string>());
    if (!mode) return std::move(mode).error();
    p.network.mode = *mode;
    p.network.allow = net.at("allow").get<std::vector<std::string>>();
    p.network.deny = net.at("deny").get<std::vector<std::string>>();
    p.network.allow_local_binding = net.at("allow_local_binding").get<bool>();
    const auto& env = j.at("env");
    p.env.pass = env.at("pass").get<std::vector<std::string>>();
    p.env.set = env.at("set").get<std::map<std::string, std::string>>();
    const auto& lim = j.at("limits");
    if (!lim.at("memory_bytes").is_null()) p.limits.memory_bytes = lim["memory_bytes"].get<std::uint64_t>();
    if (!lim.at("pids").is_null()) p.limits.pids = lim["pids"].get<std::uint64_t>();
    if (!lim.at("cpus").is_null()) p.limits.cpus = lim["cpus"].get<double>();
    if (!lim.at("timeout_ms").is_null())
      p.limits.timeout = std::chrono::milliseconds(lim["timeout_ms"].get<std::int64_t>());
    if (!lim.at("output_bytes").is_null()) p.limits.output_bytes = lim["output_bytes"].get<std::uint64_t>();
    const auto& proc = j.at("process");
    p.process.seccomp = proc.at("seccomp").get<std::string>();
    p.process.seccomp_base = proc.at("base").get<std::string>();
    p.process.allow_nested_userns = proc.at("allow_nested_userns").get<bool>();
    p.process.seccomp_block = proc.at("block").get<std::vector<std::string>>();
    return p;
  } catch (const nlohmann::json::exception& e) {
    return make_error(Errc::io_error, std::string("malformed stored policy: ") + e.what());
  }
}

}  // namespace corral::sandbox
