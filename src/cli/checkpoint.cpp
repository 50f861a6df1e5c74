// `corral checkpoint (NAME | --layer DIR) TAG`: a snapshot of a workspace's upper layer.
#include <fmt/format.h>

#include <memory>

#include "cli/exit_status.hpp"
#include "cli/layer_target.hpp"
#include "cli/verbs.hpp"
#include "workspace/checkpoint.hpp"

namespace corral::cli {

void add_checkpoint_verb(CLI::App& app, VerbAction& action) {
  auto t = std::make_shared<LayerTarget>();
  CLI::App* sub = app.add_subcommand("checkpoint", "Snapshot a copy-on-write workspace as TAG");
  add_layer_target(sub, *t, "[NAME] TAG");
  sub->callback([t, &action] {
    action = [t] {
      std::vector<std::string> args;
      auto layer = open_target(*t, 1, args);
      if (!layer) return report_error("checkpoint", layer.error());
      auto info = workspace::create_checkpoint(*layer, args[0]);
      if (!info) return report_error("checkpoint", info.error());
      fmt::print("checkpoint {} ({} change(s){})\n", info->tag, info->changes,
                 info->live ? "; taken while the sandbox runs" : "");
      return exit_status::success;
    };
  });
}

}  // namespace corral::cli
