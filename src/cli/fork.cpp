// `corral fork NAME NEW`: a new sandbox NEW (stopped) from sandbox NAME: policy, workspaces, a
// copy of its home volume and a fork of its copy-on-write layer.
// `corral fork --layer DIR NEWDIR`: a new layer starting from DIR's current state.
#include <fmt/format.h>

#include <memory>

#include "cli/exit_status.hpp"
#include "cli/layer_target.hpp"
#include "cli/sandbox_support.hpp"
#include "cli/verbs.hpp"
#include "sandbox/api.hpp"
#include "workspace/checkpoint.hpp"

namespace corral::cli {

void add_fork_verb(CLI::App& app, VerbAction& action) {
  auto t = std::make_shared<LayerTarget>();
  CLI::App* sub = app.add_subcommand("fork", "Copy a copy-on-write workspace's state into a new layer");
  add_layer_target(sub, *t, "NAME NEW (sandboxes), or NEWDIR with --layer DIR");
  sub->callback([t, &action] {
    action = [t] {
      if (t->layer_dir.empty()) {
        if (t->positionals.size() != 2)
          return report_error("fork", make_error(Errc::invalid_input,
                                                 fmt::format("expected 2 arguments (NAME NEW), got {}",
                                                             t->positionals.size())));
        auto s = sandbox::fork_sandbox(t->positionals[0], t->positionals[1]);
        if (!s) return report_sandbox_error(s.error());
        fmt::print("forked {} into {} (stopped; `corral start {}` runs it)\n", t->positionals[0],
                   s->name, s->name);
        return exit_status::success;
      }
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
