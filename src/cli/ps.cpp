// `corral ps NAME`: the sandbox's background processes (exec -d): id, pid, state, exit, command.
#include <fmt/format.h>
#include <memory>

#include "cli/exit_status.hpp"
#include "cli/sandbox_support.hpp"
#include "cli/verbs.hpp"
#include "sandbox/api.hpp"

namespace corral::cli {

void add_ps_verb(CLI::App& app, VerbAction& action) {
  struct Opts {
    std::string name;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand("ps", "List a sandbox's background processes");
  sub->add_option("name", o->name, "The sandbox")->required();
  sub->add_flag("--json", o->json, "As JSON");
  sub->callback([o, &action] {
    action = [o] {
      auto dir = sandbox::logs_dir(o->name);
      if (!dir) return report_sandbox_error(dir.error());
      auto jobs = sandbox::list_jobs(*dir);
      if (o->json) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& j : jobs) arr.push_back(sandbox::job_to_json(j));
        fmt::print("{}\n", arr.dump(2));
        return exit_status::success;
      }
      fmt::print("{:<8} {:>6} {:<8} {:>4} {}\n", "ID", "PID", "STATE", "EXIT", "COMMAND");
      for (const auto& j : jobs) {
        std::string cmd;
        for (const auto& a : j.argv) cmd += (cmd.empty() ? "" : " ") + a;
        // "cut": the job reached the output limit and was killed.
        fmt::print("{:<8} {:>6} {:<8} {:>4} {}\n", j.id, j.pid,
                   j.output_limit_reached ? "cut" : j.state,
                   j.exit_code ? std::to_string(*j.exit_code) : "-", cmd);
      }
      return exit_status::success;
    };
  });
}

}  // namespace corral::cli
