// `corral` entry point: parse the command line, run one verb, exit with its status.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "cli/exit_status.hpp"
#include "cli/verbs.hpp"

namespace {

using AddVerb = void (*)(CLI::App&, corral::cli::VerbAction&);

// Every verb, in `corral --help` order.
constexpr std::pair<const char*, AddVerb> kVerbs[] = {
    {"run", corral::cli::add_run_verb},
    {"policy", corral::cli::add_policy_verb},
    {"doctor", corral::cli::add_doctor_verb},
    {"gc", corral::cli::add_gc_verb},
    {"create", corral::cli::add_create_verb},
    {"exec", corral::cli::add_exec_verb},
    {"shell", corral::cli::add_shell_verb},
    {"ps", corral::cli::add_ps_verb},
    {"logs", corral::cli::add_logs_verb},
    {"kill", corral::cli::add_kill_verb},
    {"ls", corral::cli::add_ls_verb},
    {"inspect", corral::cli::add_inspect_verb},
    {"stop", corral::cli::add_stop_verb},
    {"start", corral::cli::add_start_verb},
    {"rm", corral::cli::add_rm_verb},
    {"update", corral::cli::add_update_verb},
    {"diff", corral::cli::add_diff_verb},
    {"checkpoint", corral::cli::add_checkpoint_verb},
    {"rollback", corral::cli::add_rollback_verb},
    {"checkpoints", corral::cli::add_checkpoints_verb},
    {"fork", corral::cli::add_fork_verb},
    {"apply", corral::cli::add_apply_verb},
};

}  // namespace

int main(int argc, char** argv) {
  if (corral::cli::is_git_verb(argc, argv)) return corral::cli::exec_git_verb(argv);
  CLI::App app{"corral: run untrusted commands in policy-narrowed sandboxes", "corral"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "corral 0.1.0");

  // `corral exec ...` and `corral run ...` are on every agent's hot path: when the first
  // argument names a verb, only that verb's options are built (building all of them is most
  // of the parser's start-up). Anything else (--help, a typo) gets the whole set.
  corral::cli::VerbAction action;
  const AddVerb* only = nullptr;
  for (const auto& [name, add] : kVerbs)
    if (argc > 1 && std::strcmp(argv[1], name) == 0) only = &add;
  if (only) {
    (*only)(app, action);
  } else {
    for (const auto& [name, add] : kVerbs) add(app, action);
    corral::cli::add_git_verbs_help(app);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    if (rc == 0) return 0;  // --help, --version
    // `run` promises 125 for anything that fails before the command starts.
    bool is_run = argc > 1 && (std::strcmp(argv[1], "run") == 0 || std::strcmp(argv[1], "exec") == 0);
    return is_run ? corral::exit_status::corral_failed : corral::exit_status::usage;
  }
  if (!action) return corral::exit_status::usage;
  return action();
}
