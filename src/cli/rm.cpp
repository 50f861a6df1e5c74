// `corral rm NAME [-f]`: destroy: processes, state and home volume gone. -f also stops a
// running sandbox.
#include <fmt/format.h>
#include <memory>

#include "cli/exit_status.hpp"
#include "cli/sandbox_support.hpp"
#include "cli/verbs.hpp"
#include "sandbox/api.hpp"

namespace corral::cli {

void add_rm_verb(CLI::App& app, VerbAction& action) {
  struct Opts {
    std::vector<std::string> names;
    bool force = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand("rm", "Remove sandboxes with their home volumes");
  sub->add_option("name", o->names, "The sandboxes")->required();
  sub->add_flag("-f,--force", o->force, "Stop a running sandbox first");
  sub->callback([o, &action] {
    action = [o] {
      int rc = exit_status::success;
      for (const auto& n : o->names)
        if (auto r = sandbox::remove(n, o->force); !r) rc = std::max(rc, report_sandbox_error(r.error()));
      return rc;
    };
  });
}

}  // namespace corral::cli
