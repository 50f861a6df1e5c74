// `corral-git` entry point: the git verbs of `corral` (commit, merge), which `corral` execs.
#include <CLI/CLI.hpp>

#include "cli/exit_status.hpp"
#include "cli/git/verbs.hpp"

int main(int argc, char** argv) {
  CLI::App app{"corral: git verbs for copy-on-write workspaces", "corral"};
  app.require_subcommand(1);
  corral::cli::VerbAction action;
  corral::cli::add_commit_verb(app, action);
  corral::cli::add_merge_verb(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : corral::exit_status::usage;
  }
  if (!action) return corral::exit_status::usage;
  return action();
}
