// `corral run [OPTIONS] -- CMD [ARGS...]`: one command in a fresh sandbox.
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <optional>

#include "cli/exit_status.hpp"
#include "cli/policy_flags.hpp"
#include "cli/verbs.hpp"
#include "common/atomic_file.hpp"
#include "enforce/run.hpp"
#include "enforce/violations.hpp"
#include "workspace/run_layer.hpp"

namespace corral::cli {
namespace {

struct RunOptions {
  PolicyFlags policy;
  std::string id;
  std::string record_path;
  std::string layer_dir;
  bool quiet = false;
  std::vector<std::string> command;
};

void write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;  // the reader went away; the command sees EPIPE on its own next write
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void print_error(const Error& e) { fmt::print(stderr, "corral: {}\n", e.describe()); }

bool write_record(const std::string& path, const RunRecord& rec) {
  if (path.empty()) return true;
  auto r = write_file_atomic(path, record_to_json(rec).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (!r) print_error(r.error());
  return r.ok();
}

int run_command(const RunOptions& opts) {
  RunRecord failed;  // what --record gets when nothing could run
  failed.id = opts.id.empty() ? new_run_id() : opts.id;
  failed.argv = opts.command;
  failed.exit_code = exit_status::corral_failed;
  auto fail = [&](const Error& e) {
    print_error(e);
    failed.error = e.describe();
    write_record(opts.record_path, failed);
    return exit_status::corral_failed;
  };

  std::vector<std::string> notes;
  auto policy = build_effective_policy(opts.policy, notes);
  for (const auto& n : notes) fmt::print(stderr, "corral: note: {}\n", n);
  if (!policy) return fail(policy.error());

  // Signals meant for the command arrive on a signalfd and are forwarded; blocking them before
  // the clone also keeps them away from the child until its init is ready.
  sigset_t forwarded;
  sigemptyset(&forwarded);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) sigaddset(&forwarded, s);
  sigprocmask(SIG_BLOCK, &forwarded, nullptr);
  UniqueFd sigfd(signalfd(-1, &forwarded, SFD_CLOEXEC));

  const auto output_limit = policy->limits.output_bytes;
  RunRequest req;
  req.policy = std::move(*policy);
  req.argv = opts.command;
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd)) req.cwd = cwd;
  req.id = failed.id;
  // Output goes straight to the command's fds unless it must be counted.
  const bool count_output = req.policy.limits.output_bytes.has_value();
  req.stdio = count_output ? StdioMode::pipe : StdioMode::inherit;
  req.inherit_stdin = true;

  // A copy-on-write workspace gets its layer now; what the command wrote is read from it
  // after the sandbox is gone (the lock is held until then: init inherits it).
  std::optional<workspace::RunLayer> layer;
  if (req.policy.workspace_cow) {
    std::string layer_dir = opts.layer_dir;
    if (!layer_dir.empty() && layer_dir[0] != '/') layer_dir = req.cwd + "/" + layer_dir;
    auto prepared = workspace::prepare_run_layer(req.policy.workspace, req.id, layer_dir);
    if (!prepared) return fail(prepared.error());
    layer = std::move(*prepared);
    req.workspace_layer = layer->layer.dir;
  }
  if (!layer && !opts.layer_dir.empty()) {
    Error e = make_error(Errc::invalid_input, "needs a copy-on-write workspace (--workspace PATH:cow)");
    e.key = "--layer";
    return fail(e);
  }
  auto finish_layer = [&](RunRecord& rec) {
    if (!layer) return;
    auto kept = workspace::finish_run_layer(*layer, rec);
    if (!kept)
      print_error(kept.error());
    else if (!kept->empty() && !opts.quiet)
      fmt::print(stderr, "corral: {} change(s) to {} kept in {} (corral diff --layer {}; corral "
                 "apply --layer {})\n", rec.writes.size(), layer->layer.base.lower, *kept, *kept, *kept);
    layer.reset();
  };

  auto exe = start_run(std::move(req));
  if (!exe) {
    finish_layer(failed);
    return fail(exe.error());
  }
  Execution::WaitOptions wopts;
  wopts.signal_fd = sigfd.get();
  if (count_output) {
    wopts.on_stdout = [](const char* p, size_t n) { write_all(1, p, n); };
    wopts.on_stderr = [](const char* p, size_t n) { write_all(2, p, n); };
  }
  auto rec = (*exe)->wait(wopts);
  exe->reset();  // the sandbox (and with it the overlay) is gone
  if (!rec) {
    finish_layer(failed);
    return fail(rec.error());
  }
  finish_layer(*rec);

  if (rec->error) fmt::print(stderr, "corral: {}\n", *rec->error);
  if (!rec->violations.empty() && !opts.quiet) {
    std::string list = violation_summary(rec->violations);
    fmt::print(stderr, "corral: {} violation{}: {}{}\n", rec->violations.size(),
               rec->violations.size() == 1 ? "" : "s", list,
               opts.record_path.empty() ? "" : " (details in " + opts.record_path + ")");
  }
  if (rec->output_truncated)
    fmt::print(stderr, "corral: output limit of {} bytes reached: output cut there and the "
               "sandbox killed\n", output_limit.value_or(0));
  if (rec->timed_out && !opts.quiet)
    fmt::print(stderr, "corral: time limit reached after {} ms; the sandbox was killed\n",
               rec->duration_ms);
  if (!write_record(opts.record_path, *rec)) {
    // The command ran; its status is still what we report, but say the record is missing.
  }
  return rec->exit_code;
}

}  // namespace

void add_run_verb(CLI::App& app, VerbAction& action) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand("run", "Run one command in a fresh sandbox");
  add_policy_flags(sub, opts->policy);
  sub->add_option("--id", opts->id, "Correlation id for this run (default: a fresh one)");
  sub->add_option("--record", opts->record_path, "Write the run record (JSON) to FILE");
  sub->add_option("--layer", opts->layer_dir,
                  "With --workspace PATH:cow: keep the changes in layer DIR (continued if it "
                  "exists) instead of $CORRAL_HOME/runs/ID/workspace");
  sub->add_flag("-q,--quiet", opts->quiet, "Print nothing of corral's own after the command");
  sub->add_option("command", opts->command, "The command and its arguments, after --")
      ->required();
  sub->positionals_at_end();
  sub->callback([opts, &action] { action = [opts] { return run_command(*opts); }; });
}

}  // namespace corral::cli
