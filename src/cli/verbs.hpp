// Registration of `corral` subcommands; one file per verb implements one add_*_verb.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace corral::cli {

// A verb's registration sets `action` from its CLI11 callback; main() runs it after parsing
// and exits with what it returns (DESIGN.md's exit statuses).
using VerbAction = std::function<int()>;

void add_run_verb(CLI::App& app, VerbAction& action);
void add_policy_verb(CLI::App& app, VerbAction& action);
void add_doctor_verb(CLI::App& app, VerbAction& action);
void add_gc_verb(CLI::App& app, VerbAction& action);
// Persistent sandboxes (sandbox/api.hpp).
void add_create_verb(CLI::App& app, VerbAction& action);
void add_exec_verb(CLI::App& app, VerbAction& action);
void add_shell_verb(CLI::App& app, VerbAction& action);
void add_ps_verb(CLI::App& app, VerbAction& action);
void add_logs_verb(CLI::App& app, VerbAction& action);
void add_kill_verb(CLI::App& app, VerbAction& action);
void add_ls_verb(CLI::App& app, VerbAction& action);
void add_inspect_verb(CLI::App& app, VerbAction& action);
void add_stop_verb(CLI::App& app, VerbAction& action);
void add_start_verb(CLI::App& app, VerbAction& action);
void add_rm_verb(CLI::App& app, VerbAction& action);
void add_update_verb(CLI::App& app, VerbAction& action);
void add_diff_verb(CLI::App& app, VerbAction& action);
void add_checkpoint_verb(CLI::App& app, VerbAction& action);
void add_rollback_verb(CLI::App& app, VerbAction& action);
void add_checkpoints_verb(CLI::App& app, VerbAction& action);
void add_fork_verb(CLI::App& app, VerbAction& action);
void add_apply_verb(CLI::App& app, VerbAction& action);

// commit / merge run in the `corral-git` binary (cli/git/): `corral` execs it.
bool is_git_verb(int argc, char** argv);
int exec_git_verb(char** argv);  // returns only when the exec failed
void add_git_verbs_help(CLI::App& app);

}  // namespace corral::cli
