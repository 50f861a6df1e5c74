// `corral checkpoints (NAME | --layer DIR) [--json]`: a workspace's checkpoints, oldest first.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "cli/exit_status.hpp"
#include "cli/layer_target.hpp"
#include "cli/verbs.hpp"
#include "workspace/checkpoint.hpp"

namespace corral::cli {

void add_checkpoints_verb(CLI::App& app, VerbAction& action) {
  auto t = std::make_shared<LayerTarget>();
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("checkpoints", "List a copy-on-write workspace's checkpoints");
  add_layer_target(sub, *t, "[NAME]");
  sub->add_flag("--json", *json, "A JSON array");
  sub->callback([t, json, &action] {
    action = [t, json] {
      std::vector<std::string> args;
      auto layer = open_target(*t, 0, args);
      if (!layer) return report_error("checkpoints", layer.error());
      auto list = workspace::list_checkpoints(*layer);
      if (!list) return report_error("checkpoints", list.error());
      if (*json) {
        auto arr = nlohmann::ordered_json::array();
        for (const auto& c : *list)
          arr.push_back({{"tag", c.tag}, {"created", c.created}, {"changes", c.changes}, {"live", c.live}});
        fmt::print("{}\n", arr.dump(2));
      } else {
        for (const auto& c : *list)
          fmt::print("{}\t{}\t{} change(s){}\n", c.tag, c.created, c.changes, c.live ? "\t(live)" : "");
      }
      return exit_status::success;
    };
  });
}

}  // namespace corral::cli
