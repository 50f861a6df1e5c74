// `corral rollback (NAME | --layer DIR) TAG`: restore a workspace exactly as checkpoint TAG.
#include <fmt/format.h>

#include <memory>

#include "cli/exit_status.hpp"
#include "cli/layer_target.hpp"
#include "cli/verbs.hpp"
#include "workspace/checkpoint.hpp"

namespace corral::cli {

void add_rollback_verb(CLI::App& app, VerbAction& action) {
  auto t = std::make_shared<LayerTarget>();
  CLI::App* sub = app.add_subcommand("rollback", "Restore a copy-on-write workspace to checkpoint TAG");
  add_layer_target(sub, *t, "[NAME] TAG");
  sub->callback([t, &action] {
    action = [t] {
      std::vector<std::string> args;
      auto layer = open_target(*t, 1, args);
      if (!layer) return report_error("rollback", layer.error());
      if (auto r = workspace::rollback_to_checkpoint(*layer, args[0]); !r)
        return report_error("rollback", r.error());
      fmt::print("rolled back to {}\n", args[0]);
      return exit_status::success;
    };
  });
}

}  // namespace corral::cli
