// `corral apply (NAME | --layer DIR) [--paths P ...] [--dry-run]`: copy a workspace's changes
// onto the host directory, refusing where the host changed since the sandbox started.
#include <fmt/format.h>

#include <memory>

#include "cli/exit_status.hpp"
#include "cli/layer_target.hpp"
#include "cli/verbs.hpp"
#include "workspace/apply.hpp"

namespace corral::cli {
namespace {

struct ApplyFlags {
  LayerTarget target;
  workspace::ApplyOptions options;
};

}  // namespace

void add_apply_verb(CLI::App& app, VerbAction& action) {
  auto o = std::make_shared<ApplyFlags>();
  CLI::App* sub = app.add_subcommand("apply", "Copy a copy-on-write workspace's changes onto the host");
  add_layer_target(sub, o->target, "[NAME]");
  sub->add_option("--paths", o->options.paths, "Only these paths (relative to the workspace), and what is below them");
  sub->add_flag("--dry-run", o->options.dry_run, "Check for host-side changes and list, write nothing");
  sub->callback([o, &action] {
    action = [o] {
      std::vector<std::string> args;
      auto layer = open_target(o->target, 0, args);
      if (!layer) return report_error("apply", layer.error());
      auto applied = workspace::apply_layer(*layer, o->options);
      if (!applied) return report_error("apply", applied.error());
      for (const auto& c : *applied) fmt::print("{}\n", workspace::change_to_line(c));
      fmt::print("{} {} change(s) to {}\n", o->options.dry_run ? "would apply" : "applied",
                 applied->size(), layer->base.lower);
      return exit_status::success;
    };
  });
}

}  // namespace corral::cli
