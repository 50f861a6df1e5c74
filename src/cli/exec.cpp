// `corral exec NAME [--cwd DIR] [--env ...] [--timeout D] [--require PATH]... [-i] [-t] [-d]
// -- CMD...`: one command in a running sandbox, at about the cost of a fork. Exit status as
// `corral run`: the command's, 128+N, 124, 126, 127; 125 when nothing could run.
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <fmt/format.h>
#include <memory>

#include "cli/exit_status.hpp"
#include "cli/verbs.hpp"
#include "linux/fd.hpp"
#include "enforce/violations.hpp"
#include "policy/load.hpp"
#include "sandbox/api.hpp"

namespace corral::cli {
namespace {

struct ExecCliOptions {
  std::string name;
  std::string cwd;
  std::vector<std::string> env;
  std::string timeout;
  std::vector<std::string> require;
  bool interactive = false, tty = false, detach = false, quiet = false;
  std::vector<std::string> command;
};

// Where the supervisor appends every exec's violations.
std::string violations_log(const std::string& name) {
  auto dir = sandbox::logs_dir(name);
  return dir ? *dir + "/violations.jsonl" : "the sandbox's logs/violations.jsonl";
}

int fail(const Error& e) {
  fmt::print(stderr, "corral: {}\n", e.describe());
  return exit_status::corral_failed;
}

}  // namespace

int exec_in_sandbox(const std::string& name, sandbox::ExecOptions& o, bool quiet) {
  // Signals meant for the command arrive on a signalfd and are forwarded to it.
  sigset_t forwarded;
  sigemptyset(&forwarded);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) sigaddset(&forwarded, s);
  sigprocmask(SIG_BLOCK, &forwarded, nullptr);
  UniqueFd sigfd(signalfd(-1, &forwarded, SFD_CLOEXEC));
  o.signal_fd = sigfd.get();
  const int stdio[3] = {0, 1, 2};
  auto out = sandbox::exec(name, o, stdio);
  if (!out) return fail(out.error());
  if (!out->error.empty()) fmt::print(stderr, "corral: {}\n", out->error);
  if (o.background) {
    fmt::print("{}\n", out->job_id);
    return exit_status::success;
  }
  if (out->timed_out) fmt::print(stderr, "corral: time limit reached; the command was killed\n");
  if (out->output_limit_reached)
    fmt::print(stderr, "corral: output limit reached: output cut there and the command killed\n");
  if (!out->violations.empty() && !quiet)
    fmt::print(stderr, "corral: {} violation{}: {} (every exec's are in {})\n",
               out->violations.size(), out->violations.size() == 1 ? "" : "s",
               violation_summary(out->violations), violations_log(name));
  return out->exit_code;
}

namespace {

int run_exec(const ExecCliOptions& c) {
  sandbox::ExecOptions o;
  o.argv = c.command;
  // A second "--" (corral exec NAME -- -- CMD) is the user's; only one is ours.
  if (!o.argv.empty() && o.argv[0] == "--") o.argv.erase(o.argv.begin());
  if (o.argv.empty()) {
    Error e = make_error(Errc::invalid_input, "no command given (corral exec NAME -- CMD...)");
    return fail(e);
  }
  o.cwd = c.cwd;
  o.required_paths = c.require;
  o.keep_stdin = c.interactive || c.tty;
  o.tty = c.tty;
  o.background = c.detach;
  if (c.tty && c.detach) {
    Error e = make_error(Errc::invalid_input, "-t and -d do not go together: a background "
                                              "process has no terminal");
    e.key = "-d";
    return fail(e);
  }
  for (const auto& v : c.env) {
    auto eq = v.find('=');
    std::string n = v.substr(0, eq);
    if (auto r = validate_env_name(n); !r || n.back() == '*') {
      Error e = make_error(Errc::invalid_input, "\"" + v + "\": not a variable name (NAME or NAME=VALUE)");
      e.key = "--env";
      return fail(e);
    }
    if (eq == std::string::npos) o.env_pass.push_back(n);
    else o.env_overlay[n] = v.substr(eq + 1);
  }
  if (!c.timeout.empty()) {
    auto d = parse_duration(c.timeout);
    if (!d) {
      Error e = d.error();
      e.key = "--timeout";
      return fail(e);
    }
    o.timeout = *d;
  }
  return exec_in_sandbox(c.name, o, c.quiet);
}

}  // namespace

void add_exec_verb(CLI::App& app, VerbAction& action) {
  auto opts = std::make_shared<ExecCliOptions>();
  CLI::App* sub = app.add_subcommand("exec", "Run a command in a running sandbox");
  sub->add_option("name", opts->name, "The sandbox")->required();
  sub->add_option("--cwd", opts->cwd, "Working directory inside (default: the caller's, if in a workspace, else the workspace)");
  // One value per occurrence: a "--" after them ends the options, not just their list.
  sub->add_option("--env", opts->env, "NAME (pass from the caller) or NAME=VALUE (set)")
      ->allow_extra_args(false);
  sub->add_option("--timeout", opts->timeout, "Kill the command's whole tree after D; exit 124");
  sub->add_option("--require", opts->require, "Fail (125) unless PATH is inside a workspace")
      ->allow_extra_args(false);
  sub->add_flag("-i,--interactive", opts->interactive, "Keep stdin open");
  sub->add_flag("-t,--tty", opts->tty, "Allocate a terminal");
  sub->add_flag("-d,--detach", opts->detach, "Start in the background and print its id");
  sub->add_flag("-q,--quiet", opts->quiet, "No summary of violations on stderr");
  sub->add_option("command", opts->command, "The command and its arguments, after --")->required();
  sub->callback([opts, &action] { action = [opts] { return run_exec(*opts); }; });
}

}  // namespace corral::cli
