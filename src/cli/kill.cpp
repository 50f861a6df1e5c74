// `corral kill NAME ID`: kills a background process and its whole tree.
#include <memory>

#include "cli/exit_status.hpp"
#include "cli/sandbox_support.hpp"
#include "cli/verbs.hpp"
#include "sandbox/api.hpp"

namespace corral::cli {

void add_kill_verb(CLI::App& app, VerbAction& action) {
  struct Opts {
    std::string name, id;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand("kill", "Kill a background process and all it started");
  sub->add_option("name", o->name, "The sandbox")->required();
  sub->add_option("id", o->id, "The process id from `corral ps`")->required();
  sub->callback([o, &action] {
    action = [o] {
      if (auto r = sandbox::kill_job(o->name, o->id); !r) return report_sandbox_error(r.error());
      return exit_status::success;
    };
  });
}

}  // namespace corral::cli
