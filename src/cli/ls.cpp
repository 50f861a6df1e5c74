// `corral ls [--json]`: every sandbox with its state and workspaces.
#include <fmt/format.h>
#include <memory>

#include "cli/exit_status.hpp"
#include "cli/verbs.hpp"
#include "sandbox/api.hpp"

namespace corral::cli {

void add_ls_verb(CLI::App& app, VerbAction& action) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("ls", "List sandboxes");
  sub->add_flag("--json", *json, "One JSON array");
  sub->callback([json, &action] {
    action = [json] {
      auto all = sandbox::list();
      if (*json) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& s : all) {
          nlohmann::json ws = nlohmann::json::array();
          for (const auto& w : s.workspaces) ws.push_back({{"path", w.path}, {"mode", w.mode}});
          arr.push_back({{"name", s.name}, {"state", sandbox::status_name(s.status)},
                         {"workspaces", ws}, {"policy_hash", s.policy_hash},
                         {"created_at", s.created_at}});
        }
        fmt::print("{}\n", arr.dump(2));
        return exit_status::success;
      }
      fmt::print("{:<24} {:<9} {}\n", "NAME", "STATE", "WORKSPACES");
      for (const auto& s : all) {
        std::string ws;
        for (const auto& w : s.workspaces) ws += (ws.empty() ? "" : " ") + w.path + ":" + w.mode;
        fmt::print("{:<24} {:<9} {}\n", s.name, sandbox::status_name(s.status), ws);
      }
      return exit_status::success;
    };
  });
}

}  // namespace corral::cli
