// `corral commit (NAME | --layer DIR) --branch BR [-m MSG] [--force] [--json]`: the changes of
// a copy-on-write workspace become one commit on branch BR whose parent is the HEAD the
// workspace started from. The user's working tree, index, HEAD and stash are not touched.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "cli/exit_status.hpp"
#include "cli/git/verbs.hpp"
#include "cli/layer_target.hpp"
#include "workspace/diff.hpp"
#include "workspace/git_commit.hpp"

namespace corral::cli {
namespace {

struct CommitOptions {
  LayerTarget target;
  std::string branch, message;
  bool force = false, json = false;
};

// The diff of a layer as git changes: files and symlinks are upserted from the upper layer,
// deletions remove (a deleted directory removes its subtree); directories themselves carry
// nothing git keeps. `prefix` turns workspace-relative paths into repo-relative ones.
std::vector<git::GitChange> to_git_changes(const workspace::Layer& layer,
                                           const std::vector<workspace::Change>& changes,
                                           const std::string& prefix) {
  std::vector<git::GitChange> out;
  for (const auto& c : changes) {
    git::GitChange g;
    g.path = prefix + c.path;
    if (c.kind == workspace::ChangeKind::deleted) {
      g.op = git::GitChange::Op::remove;
    } else if (c.type == workspace::EntryType::dir) {
      continue;  // its files are listed on their own
    } else {
      g.op = git::GitChange::Op::upsert;
      g.source = layer.upper() + "/" + c.path;
    }
    out.push_back(std::move(g));
  }
  return out;
}

int run_commit(const CommitOptions& o) {
  std::vector<std::string> args;
  auto layer = open_target(o.target, 0, args);
  if (!layer) return report_error("commit", layer.error());
  if (!layer->base.git_head)
    return report_error("commit", make_error(Errc::invalid_input,
                                             "the workspace " + layer->base.lower +
                                                 " was not a git repository (no HEAD) when the "
                                                 "sandbox started; nothing to commit onto"));
  auto root = git::worktree_root(layer->base.lower);
  if (!root) return report_error("commit", root.error());
  auto prefix = git::path_in_worktree(layer->base.lower);
  if (!prefix) return report_error("commit", prefix.error());
  auto changes = workspace::diff_layer(*layer);
  if (!changes) return report_error("commit", changes.error());
  auto git_changes = to_git_changes(*layer, *changes, *prefix);
  std::string message =
      o.message.empty() ? fmt::format("corral: {} change(s) from {}", changes->size(), layer->dir)
                        : o.message;
  git::CommitOptions opts;
  opts.force = o.force;
  auto commit = git::commit_changes(*root, *layer->base.git_head, git_changes, o.branch, message,
                                    opts);
  if (!commit) return report_error("commit", commit.error());
  if (o.json) {
    nlohmann::ordered_json j{{"branch", o.branch},   {"commit", *commit},
                             {"parent", *layer->base.git_head}, {"repository", *root},
                             {"changes", changes->size()}};
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{} {} ({} change(s) on {})\n", o.branch, *commit, changes->size(),
               layer->base.git_head->substr(0, 12));
  }
  return exit_status::success;
}

}  // namespace

void add_commit_verb(CLI::App& app, VerbAction& action) {
  auto o = std::make_shared<CommitOptions>();
  CLI::App* sub = app.add_subcommand(
      "commit", "Commit a copy-on-write workspace's changes to a new branch of its repository");
  add_layer_target(sub, o->target, "[NAME]");
  sub->add_option("--branch,-b", o->branch, "the branch to create")->required();
  sub->add_option("-m,--message", o->message, "commit message");
  sub->add_flag("--force", o->force, "replace the branch if it exists (not the checked-out one)");
  sub->add_flag("--json", o->json, "one JSON object: branch, commit, parent, repository");
  sub->callback([o, &action] { action = [o] { return run_commit(*o); }; });
}

}  // namespace corral::cli
