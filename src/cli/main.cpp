// `corral` entry point: parse the command line, run one verb, exit with its status.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/exit_status.hpp"
#include "cli/verbs.hpp"

int main(int argc, char** argv) {
  if (corral::cli::is_git_verb(argc, argv)) return corral::cli::exec_git_verb(argv);
  CLI::App app{"corral: run untrusted commands in policy-narrowed sandboxes", "corral"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "corral 0.1.0");

  corral::cli::VerbAction action;
  corral::cli::add_run_verb(app, action);
  corral::cli::add_policy_verb(app, action);
  corral::cli::add_doctor_verb(app, action);
  corral::cli::add_gc_verb(app, action);
  for (auto add : {corral::cli::add_create_verb, corral::cli::add_exec_verb,
                   corral::cli::add_shell_verb, corral::cli::add_ps_verb,
                   corral::cli::add_logs_verb, corral::cli::add_kill_verb,
                   corral::cli::add_ls_verb, corral::cli::add_inspect_verb,
                   corral::cli::add_stop_verb, corral::cli::add_start_verb,
                   corral::cli::add_rm_verb, corral::cli::add_update_verb})
    add(app, action);
  corral::cli::add_diff_verb(app, action);
  corral::cli::add_checkpoint_verb(app, action);
  corral::cli::add_rollback_verb(app, action);
  corral::cli::add_checkpoints_verb(app, action);
  corral::cli::add_fork_verb(app, action);
  corral::cli::add_apply_verb(app, action);
  corral::cli::add_git_verbs_help(app);

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
