// Shared helpers of the sandbox verbs.
#include "cli/sandbox_support.hpp"

#include <filesystem>
#include <fmt/format.h>

#include "cli/exit_status.hpp"

namespace corral::cli {

int report_sandbox_error(const Error& e) {
  fmt::print(stderr, "corral: {}\n", e.describe());
  switch (e.code) {
    case Errc::invalid_input:
    case Errc::not_found:
    case Errc::already_exists: return exit_status::usage;
    default: return exit_status::failure;
  }
}

nlohmann::json inputs_to_json(const PolicyFlags& f, const PolicyContext& ctx) {
  return {{"cwd", ctx.cwd},
          {"home", ctx.home},
          {"policy_files", f.policy_files},
          {"srt_settings", f.srt_settings},
          {"workspaces", f.workspaces},
          {"rw", f.rw},
          {"ro", f.ro},
          {"deny_read", f.deny_read},
          {"env", f.env},
          {"net", f.net},
          {"allow_hosts", f.allow_hosts},
          {"deny_hosts", f.deny_hosts},
          {"allow_local_binding", f.allow_local_binding},
          {"watch_reads", f.watch_reads},
          {"memory", f.memory},
          {"pids", f.pids},
          {"cpus", f.cpus},
          {"timeout", f.timeout},
          {"output_limit", f.output_limit},
          {"seccomp", f.seccomp},
          {"allow_nested_userns", f.allow_nested_userns}};
}

Result<void> inputs_from_json(const nlohmann::json& j, PolicyFlags& f, PolicyContext& ctx) {
  try {
    ctx.cwd = j.at("cwd").get<std::string>();
    ctx.home = j.at("home").get<std::string>();
    j.at("policy_files").get_to(f.policy_files);
    j.at("srt_settings").get_to(f.srt_settings);
    j.at("workspaces").get_to(f.workspaces);
    j.at("rw").get_to(f.rw);
    j.at("ro").get_to(f.ro);
    j.at("deny_read").get_to(f.deny_read);
    j.at("env").get_to(f.env);
    j.at("net").get_to(f.net);
    j.at("allow_hosts").get_to(f.allow_hosts);
    j.at("deny_hosts").get_to(f.deny_hosts);
    j.at("allow_local_binding").get_to(f.allow_local_binding);
    f.watch_reads = j.value("watch_reads", false);  // absent in older sandboxes' inputs
    j.at("memory").get_to(f.memory);
    j.at("pids").get_to(f.pids);
    j.at("cpus").get_to(f.cpus);
    j.at("timeout").get_to(f.timeout);
    j.at("output_limit").get_to(f.output_limit);
    j.at("seccomp").get_to(f.seccomp);
    j.at("allow_nested_userns").get_to(f.allow_nested_userns);
    return {};
  } catch (const nlohmann::json::exception& e) {
    return make_error(Errc::io_error, std::string("the sandbox's stored inputs are malformed: ") +
                                          e.what());
  }
}

std::vector<sandbox::Workspace> workspaces_from_flags(const std::vector<std::string>& flags,
                                                      const std::string& policy_workspace,
                                                      const PolicyContext& ctx) {
  std::vector<sandbox::Workspace> out;
  for (std::size_t i = 0; i < flags.size() || i == 0; ++i) {
    std::string path = i < flags.size() ? flags[i] : "", mode = "rw";
    for (const char* m : {"ro", "rw", "cow"}) {
      std::string suffix = std::string(":") + m;
      if (path.size() > suffix.size() && path.ends_with(suffix)) {
        path.resize(path.size() - suffix.size());
        mode = m;
        break;
      }
    }
    if (i == 0) {
      out.push_back({policy_workspace, mode});
      continue;
    }
    std::filesystem::path p = path;
    if (path == "~" || path.starts_with("~/")) p = ctx.home + path.substr(1);
    else if (p.is_relative()) p = std::filesystem::path(ctx.cwd) / p;
    std::error_code ec;
    auto c = std::filesystem::weakly_canonical(p, ec);
    out.push_back({(ec ? p.lexically_normal() : c).string(), mode});
  }
  return out;
}

}  // namespace corral::cli
