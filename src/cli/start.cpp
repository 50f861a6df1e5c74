// `corral start NAME`: starts a stopped (or failed) sandbox again with its stored policy.
#include <fmt/format.h>
#include <memory>

#include "cli/exit_status.hpp"
#include "cli/sandbox_support.hpp"
#include "cli/verbs.hpp"
#include "sandbox/api.hpp"

namespace corral::cli {

void add_start_verb(CLI::App& app, VerbAction& action) {
  auto name = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("start", "Start a stopped or failed sandbox");
  sub->add_option("name", *name, "The sandbox")->required();
  sub->callback([name, &action] {
    action = [name] {
      auto s = sandbox::start(*name);
      if (!s) return report_sandbox_error(s.error());
      return exit_status::success;
    };
  });
}

}  // namespace corral::cli
