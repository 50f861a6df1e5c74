// `corral diff (NAME | --layer DIR) [--json | --stat | --patch]`: what a copy-on-write
// workspace changed, read from its upper layer.
#include <fmt/format.h>

#include <memory>

#include "cli/exit_status.hpp"
#include "cli/layer_target.hpp"
#include "cli/verbs.hpp"
#include "workspace/diff.hpp"
#include "workspace/patch.hpp"

namespace corral::cli {
namespace {

struct DiffOptions {
  LayerTarget target;
  bool json = false, stat = false, patch = false;
};

int run_diff(const DiffOptions& o) {
  if (o.json + o.stat + o.patch > 1)
    return report_error("diff", make_error(Errc::invalid_input, "--json, --stat and --patch exclude each other"));
  std::vector<std::string> args;
  auto layer = open_target(o.target, 0, args);
  if (!layer) return report_error("diff", layer.error());
  auto changes = workspace::diff_layer(*layer);
  if (!changes) return report_error("diff", changes.error());
  if (o.json) {
    auto list = nlohmann::ordered_json::array();
    for (const auto& c : *changes) list.push_back(workspace::change_to_json(c));
    nlohmann::ordered_json j{{"lower", layer->base.lower}, {"layer", layer->dir}, {"changes", list}};
    fmt::print("{}\n", j.dump(2));
  } else if (o.stat) {
    fmt::print("{}", workspace::changes_stat(*changes));
  } else if (o.patch) {
    auto patch = workspace::unified_patch(*layer, *changes);
    if (!patch) return report_error("diff", patch.error());
    fmt::print("{}", *patch);
  } else {
    for (const auto& c : *changes) fmt::print("{}\n", workspace::change_to_line(c));
  }
  return exit_status::success;
}

}  // namespace

void add_diff_verb(CLI::App& app, VerbAction& action) {
  auto o = std::make_shared<DiffOptions>();
  CLI::App* sub = app.add_subcommand("diff", "List what a copy-on-write workspace changed");
  add_layer_target(sub, o->target, "[NAME]");
  sub->add_flag("--json", o->json, "One JSON object: lower, layer, changes[]");
  sub->add_flag("--stat", o->stat, "One line per change with its size delta, then totals");
  sub->add_flag("--patch", o->patch, "A unified diff of the changed text files");
  sub->callback([o, &action] { action = [o] { return run_diff(*o); }; });
}

}  // namespace corral::cli
