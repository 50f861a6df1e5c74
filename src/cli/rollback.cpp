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
      if (auto r = workspace::rollback_to_checkpoint(*layer, args[0]); !r) {
        Error e = r.error();
        // A named sandbox that is running holds its layer mounted: say what to do.
        if (e.code == Errc::busy && t->layer_dir.empty())
          e.message = fmt::format("sandbox {0} is running and its workspace overlay is mounted; "
                                  "overlayfs does not allow changing the upper layer under a live "
                                  "mount, so nothing was rolled back. Stop the sandbox first: "
                                  "corral stop {0}; corral rollback {0} {1}; corral start {0}",
                                  t->positionals[0], args[0]);
        return report_error("rollback", e);
      }
      fmt::print("rolled back to {}\n", args[0]);
      return exit_status::success;
    };
  });
}

}  // namespace corral::cli
