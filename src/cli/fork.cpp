// `corral fork --layer DIR NEWDIR`: a new layer starting from DIR's current state.
#include <fmt/format.h>

#include <memory>

#include "cli/exit_status.hpp"
#include "cli/layer_target.hpp"
#include "cli/verbs.hpp"
#include "workspace/checkpoint.hpp"

namespace corral::cli {

void add_fork_verb(CLI::App& app, VerbAction& action) {
  auto t = std::make_shared<LayerTarget>();
  CLI::App* sub = app.add_subcommand("fork", "Copy a copy-on-write workspace's state into a new layer");
  add_layer_target(sub, *t, "NEWDIR (with --layer)");
  sub->callback([t, &action] {
    action = [t] {
      if (t->layer_dir.empty())
        return report_error("fork", make_error(Errc::invalid_input,
                                               "forking a named sandbox needs persistent sandboxes, "
                                               "which this build does not have yet; use --layer DIR NEWDIR"));
      std::vector<std::string> args;
      auto layer = open_target(*t, 1, args);
      if (!layer) return report_error("fork", layer.error());
      auto fork = workspace::fork_layer(*layer, args[0]);
      if (!fork) return report_error("fork", fork.error());
      fmt::print("forked {} into {}\n", layer->dir, fork->dir);
      return exit_status::success;
    };
  });
}

}  // namespace corral::cli
