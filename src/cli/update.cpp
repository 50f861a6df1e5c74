// `corral update NAME`: recreates the sandbox from its creation inputs resolved again (policy
// files re-read, the host root as it is now), keeping its home volume.
#include <fmt/format.h>
#include <memory>

#include "cli/exit_status.hpp"
#include "cli/sandbox_support.hpp"
#include "cli/verbs.hpp"
#include "sandbox/api.hpp"
#include "sandbox/store.hpp"

namespace corral::cli {

void add_update_verb(CLI::App& app, VerbAction& action) {
  auto name = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("update", "Recreate a sandbox with its current policy, keeping its home volume");
  sub->add_option("name", *name, "The sandbox")->required();
  sub->callback([name, &action] {
    action = [name] {
      if (auto r = sandbox::validate_name(*name); !r) return report_sandbox_error(r.error());
      auto root = sandbox::state_root();
      if (!root) return report_sandbox_error(root.error());
      auto state = sandbox::load_state(sandbox::paths_for(*root, *name));
      if (!state) return report_sandbox_error(state.error());
      PolicyFlags flags;
      PolicyContext ctx;
      if (auto r = inputs_from_json(state->inputs, flags, ctx); !r) return report_sandbox_error(r.error());
      std::vector<std::string> notes;
      auto policy = build_effective_policy(flags, ctx, notes);
      for (const auto& n : notes) fmt::print(stderr, "corral: note: {}\n", n);
      if (!policy) return report_sandbox_error(policy.error());
      auto s = sandbox::update(*name, *policy);
      if (!s) return report_sandbox_error(s.error());
      fmt::print("{} {} ({})\n", s->name, sandbox::status_name(s->status), s->policy_hash);
      return exit_status::success;
    };
  });
}

}  // namespace corral::cli
