// `corral merge (NAME | --layer DIR) --branch BR [--into REF] [--no-ff] [--json]` and
// `corral merge [NAME | --layer DIR] --abort`: seed 003's merge of a sandbox branch into the
// user's repository (stash a dirty tree, merge, list conflicts, pop only on success).
#include <unistd.h>

#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "cli/exit_status.hpp"
#include "cli/git/verbs.hpp"
#include "cli/layer_target.hpp"
#include "workspace/git_merge.hpp"

namespace corral::cli {
namespace {

struct MergeOptions {
  LayerTarget target;
  std::string branch, into, message;
  bool no_ff = false, abort = false, json = false;
};

// The repository: the one under the named workspace, or (`--abort` alone) the one holding
// the current directory.
Result<std::string> target_repository(const MergeOptions& o) {
  if (o.target.layer_dir.empty() && o.target.positionals.empty()) {
    if (!o.abort)
      return make_error(Errc::invalid_input, "name a sandbox (or --layer DIR) to merge from");
    char cwd[4096];
    if (!::getcwd(cwd, sizeof cwd))
      return make_error(Errc::io_error, "cannot get the current directory");
    return git::worktree_root(cwd);
  }
  std::vector<std::string> args;
  auto layer = open_target(o.target, 0, args);
  if (!layer) return std::move(layer).error();
  return git::worktree_root(layer->base.lower);
}

int exit_for(const git::GitSandboxResult& r) {
  if (r.success) return exit_status::success;
  if (r.has_conflicts) return exit_status::failure;
  if (r.error_code == Errc::invalid_input || r.error_code == Errc::not_found)
    return exit_status::usage;
  return exit_status::failure;
}

int run_merge(const MergeOptions& o) {
  if (o.abort && !o.branch.empty())
    return report_error("merge", make_error(Errc::invalid_input, "--abort takes no --branch"));
  if (!o.abort && o.branch.empty())
    return report_error("merge", make_error(Errc::invalid_input,
                                            "--branch BR is required (or --abort)"));
  auto repo = target_repository(o);
  if (!repo) return report_error("merge", repo.error());
  if (o.abort) {
    if (auto r = git::merge_abort(*repo); !r) return report_error("merge", r.error());
    fmt::print("merge aborted; {} is back where the merge started\n", *repo);
    return exit_status::success;
  }
  git::MergeOptions opts;
  opts.message = o.message;
  opts.fast_forward = !o.no_ff;
  git::GitSandboxResult r = git::merge_branch(*repo, o.branch, o.into, opts);
  if (o.json) {
    fmt::print("{}\n", git::to_json(r).dump(2));
    return exit_for(r);
  }
  for (const auto& w : r.warnings) fmt::print(stderr, "corral: merge: warning: {}\n", w);
  if (r.success) {
    fmt::print("merged {} into {} ({}){}\n", r.branch, r.into, git::merge_outcome_name(r.outcome),
               r.stash_restored ? "; your uncommitted work is back" : "");
  } else if (r.has_conflicts) {
    fmt::print("merge of {} into {} stopped on conflicts in:\n", r.branch, r.into);
    for (const auto& f : r.conflicted_files) fmt::print("  {}\n", f);
    fmt::print("resolve them and `git commit`, or `corral merge --abort`{}\n",
               r.stash_id.empty() ? "" : fmt::format(" (your uncommitted work is in stash {})",
                                                     r.stash_id));
  } else {
    fmt::print(stderr, "corral: merge: {}\n", r.error);
  }
  return exit_for(r);
}

}  // namespace

void add_merge_verb(CLI::App& app, VerbAction& action) {
  auto o = std::make_shared<MergeOptions>();
  CLI::App* sub = app.add_subcommand(
      "merge", "Merge a sandbox branch into the repository (stash, merge, list conflicts)");
  add_layer_target(sub, o->target, "[NAME]");
  sub->add_option("--branch,-b", o->branch, "the branch to merge (e.g. from `corral commit`)");
  sub->add_option("--into", o->into, "the local branch to merge into (default: the current one)");
  sub->add_option("-m,--message", o->message, "merge commit message");
  sub->add_flag("--no-ff", o->no_ff, "always make a merge commit");
  sub->add_flag("--abort", o->abort, "return to where the corral merge in progress started");
  sub->add_flag("--json", o->json, "the result as one JSON object");
  sub->callback([o, &action] { action = [o] { return run_merge(*o); }; });
}

}  // namespace corral::cli
