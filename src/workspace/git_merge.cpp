// merge_branch / merge_abort: stash, record, check out, merge (ff or commit), pop or stop.
#include "workspace/git_merge.hpp"

#include <algorithm>
#include <optional>

#include "workspace/git_handle.hpp"
#include "workspace/git_merge_state.hpp"
#include "workspace/git_stash.hpp"

namespace corral::git {

using namespace detail;

namespace {

const std::string kHeads = "refs/heads/";

struct Head {
  std::string branch;  // "" when detached
  std::string commit;  // hex
};

Result<Head> read_head(git_repository* repo) {
  Head h;
  git_reference* raw = nullptr;
  if (git_reference_lookup(&raw, repo, "HEAD") < 0) {
    return git_failure(Errc::io_error, "cannot read HEAD of " + workdir_of(repo));
  }
  ReferencePtr head(raw);
  if (git_reference_type(head.get()) == GIT_REFERENCE_SYMBOLIC) {
    std::string target = git_reference_symbolic_target(head.get());
    h.branch = target.rfind(kHeads, 0) == 0 ? target.substr(kHeads.size()) : target;
  }
  git_oid oid;
  if (git_reference_name_to_id(&oid, repo, "HEAD") < 0) {
    return make_error(Errc::invalid_input,
                      "git repository " + workdir_of(repo) + " has no commit yet (HEAD is unborn)");
  }
  h.commit = oid_hex(&oid);
  return h;
}

Result<std::vector<std::string>> conflicted_files(git_repository* repo) {
  git_index* raw = nullptr;
  if (git_repository_index(&raw, repo) < 0) {
    return git_failure(Errc::io_error, "cannot read the index of " + workdir_of(repo));
  }
  IndexPtr index(raw);
  std::vector<std::string> files;
  if (!git_index_has_conflicts(index.get())) return files;
  git_index_conflict_iterator* it_raw = nullptr;
  if (git_index_conflict_iterator_new(&it_raw, index.get()) < 0) {
    return git_failure(Errc::io_error, "cannot list the conflicts in " + workdir_of(repo));
  }
  ConflictIteratorPtr it(it_raw);
  const git_index_entry *ancestor, *ours, *theirs;
  while (git_index_conflict_next(&ancestor, &ours, &theirs, it.get()) == 0) {
    const git_index_entry* e = ours ? ours : theirs ? theirs : ancestor;
    if (e) files.emplace_back(e->path);
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

// The local branch `into` names ("main" or "refs/heads/main").
Result<std::string> local_branch(git_repository* repo, const std::string& into) {
  std::string name = into.rfind(kHeads, 0) == 0 ? into.substr(kHeads.size()) : into;
  git_reference* ref = nullptr;
  if (!name.empty() && git_branch_lookup(&ref, repo, name.c_str(), GIT_BRANCH_LOCAL) == 0) {
    git_reference_free(ref);
    return name;
  }
  git_object* obj = nullptr;
  if (git_revparse_single(&obj, repo, into.c_str()) == 0) {
    git_object_free(obj);
    return make_error(Errc::invalid_input, "cannot merge into '" + into + "': not a local branch");
  }
  return make_error(Errc::not_found, "unknown ref '" + into + "' in " + workdir_of(repo));
}

// `branch` as an annotated commit (through its reference when it is one, for the messages).
Result<AnnotatedCommitPtr> their_commit(git_repository* repo, const std::string& branch) {
  git_annotated_commit* ac = nullptr;
  git_reference* ref = nullptr;
  if (git_branch_lookup(&ref, repo, branch.c_str(), GIT_BRANCH_LOCAL) == 0) {
    ReferencePtr owned(ref);
    if (git_annotated_commit_from_ref(&ac, repo, ref) < 0) {
      return git_failure(Errc::io_error, "cannot read branch '" + branch + "'");
    }
    return AnnotatedCommitPtr(ac);
  }
  auto commit = resolve_commit(repo, branch);
  if (!commit) return std::move(commit).error();
  if (git_annotated_commit_lookup(&ac, repo, git_commit_id(commit->get())) < 0) {
    return git_failure(Errc::io_error, "cannot read '" + branch + "'");
  }
  return AnnotatedCommitPtr(ac);
}

Result<std::string> make_merge_commit(git_repository* repo, const git_annotated_commit* theirs,
                                      const std::string& message, const GitSignature& signature) {
  git_index* raw = nullptr;
  if (git_repository_index(&raw, repo) < 0) {
    return git_failure(Errc::io_error, "cannot read the index of " + workdir_of(repo));
  }
  IndexPtr index(raw);
  git_oid tree_oid;
  if (git_index_write_tree(&tree_oid, index.get()) < 0) {
    return git_failure(Errc::io_error, "cannot write the merged tree");
  }
  git_tree* tree_raw = nullptr;
  if (git_tree_lookup(&tree_raw, repo, &tree_oid) < 0) {
    return git_failure(Errc::io_error, "cannot read the merged tree");
  }
  TreePtr tree(tree_raw);
  auto ours = resolve_commit(repo, "HEAD");
  if (!ours) return std::move(ours).error();
  git_commit* their_raw = nullptr;
  if (git_commit_lookup(&their_raw, repo, git_annotated_commit_id(theirs)) < 0) {
    return git_failure(Errc::io_error, "cannot read the merged commit");
  }
  CommitPtr their(their_raw);
  auto sig = signature_for(repo, signature.name, signature.email);
  if (!sig) return std::move(sig).error();
  const git_commit* parents[] = {ours->get(), their.get()};
  std::string msg = message;
  if (msg.back() != '\n') msg.push_back('\n');
  git_oid oid;
  if (git_commit_create(&oid, repo, "HEAD", sig->get(), sig->get(), nullptr, msg.c_str(),
                        tree.get(), 2, parents) < 0) {
    return git_failure(Errc::io_error, "cannot create the merge commit");
  }
  git_repository_state_cleanup(repo);  // MERGE_HEAD, MERGE_MSG: the merge is concluded
  return oid_hex(&oid);
}

Result<std::string> fast_forward(git_repository* repo, const std::string& into,
                                 const git_annotated_commit* theirs, const std::string& branch) {
  const git_oid* target = git_annotated_commit_id(theirs);
  git_object* obj = nullptr;
  if (git_object_lookup(&obj, repo, target, GIT_OBJECT_COMMIT) < 0) {
    return git_failure(Errc::io_error, "cannot read '" + branch + "'");
  }
  ObjectPtr commit(obj);
  git_checkout_options co = GIT_CHECKOUT_OPTIONS_INIT;
  co.checkout_strategy = GIT_CHECKOUT_SAFE;
  if (git_checkout_tree(repo, commit.get(), &co) < 0) {
    return git_failure(Errc::io_error, "cannot check out '" + branch + "' for a fast-forward");
  }
  git_reference* ref = nullptr;
  if (git_reference_lookup(&ref, repo, (kHeads + into).c_str()) < 0) {
    return git_failure(Errc::io_error, "cannot read branch '" + into + "'");
  }
  ReferencePtr owned(ref);
  git_reference* moved = nullptr;
  std::string log = "corral merge " + branch + ": Fast-forward";
  if (git_reference_set_target(&moved, ref, target, log.c_str()) < 0) {
    return git_failure(Errc::io_error, "cannot move branch '" + into + "'");
  }
  git_reference_free(moved);
  return oid_hex(target);
}

// Undo of a merge that failed before touching `into`: back to the start, stash popped.
void roll_back(git_repository* repo, const MergeState& state, GitSandboxResult& result) {
  if (!switch_to(repo, state.original_branch, state.original_head)) {
    result.warnings.push_back("could not check out '" + state.original_branch + "' again");
  }
  if (!state.stash_id.empty()) {
    if (auto popped = stash_pop_in(repo, state.stash_id); popped) {
      result.stash_restored = true;
    } else {
      result.warnings.push_back(popped.error().message);
    }
  }
  (void)remove_merge_state(repo);
}

}  // namespace

namespace detail {

Result<void> switch_to(git_repository* repo, const std::string& branch, const std::string& commit) {
  auto target = resolve_commit(repo, commit);
  if (!target) return std::move(target).error();
  git_checkout_options co = GIT_CHECKOUT_OPTIONS_INIT;
  co.checkout_strategy = GIT_CHECKOUT_SAFE;
  if (git_checkout_tree(repo, reinterpret_cast<git_object*>(target->get()), &co) < 0) {
    return git_failure(Errc::io_error,
                       "cannot check out '" + (branch.empty() ? commit : branch) + "'");
  }
  int rc = branch.empty() ? git_repository_set_head_detached(repo, git_commit_id(target->get()))
                          : git_repository_set_head(repo, (kHeads + branch).c_str());
  if (rc < 0) return git_failure(Errc::io_error, "cannot point HEAD at '" + branch + "'");
  return {};
}

GitSandboxResult merge_locked(git_repository* repo, const std::string& branch,
                              const std::string& into_arg, const MergeOptions& options,
                              const std::string& inherited_stash) {
  const std::string where = workdir_of(repo);
  GitSandboxResult result;
  auto fail = [&](Error e) {
    GitSandboxResult f = GitSandboxResult::failure(std::move(e));
    f.branch = branch;
    f.original_branch = result.original_branch;
    f.into = result.into;
    f.stash_id = result.stash_id;
    f.stash_restored = result.stash_restored;
    f.warnings = result.warnings;
    return f;
  };
  result.branch = branch;
  if (branch.empty()) return fail(make_error(Errc::invalid_input, "no branch to merge was named"));

  auto previous = read_merge_state(repo);
  if (!previous) return fail(std::move(previous).error());
  int repo_state = git_repository_state(repo);
  if (*previous) {
    const MergeState& p = **previous;
    if (repo_state != GIT_REPOSITORY_STATE_NONE) {
      return fail(make_error(
          Errc::invalid_input,
          "a corral merge of '" + p.branch + "' into '" + p.into + "' is in progress in " + where +
              ": resolve the conflicts and commit, or run `corral merge --abort`"));
    }
    // The user concluded that merge with git (committed or aborted it): forget it.
    if (stash_exists_in(repo, p.stash_id)) {
      result.warnings.push_back("an earlier merge of '" + p.branch +
                                "' ended outside corral; "
                                "your work from before it is still stash " +
                                p.stash_id + " (`git stash pop` restores it)");
    }
    if (auto removed = remove_merge_state(repo); !removed) return fail(std::move(removed).error());
  } else if (repo_state != GIT_REPOSITORY_STATE_NONE) {
    return fail(make_error(Errc::invalid_input,
                           "a git operation (merge, rebase, cherry-pick, ...) is in progress in " +
                               where + "; finish or abort it first"));
  }

  auto head = read_head(repo);
  if (!head) return fail(std::move(head).error());
  result.original_branch = head->branch;
  if (into_arg.empty() && head->branch.empty()) {
    return fail(make_error(Errc::invalid_input,
                           "HEAD is detached in " + where + "; name the branch to merge into"));
  }
  auto into = local_branch(repo, into_arg.empty() ? head->branch : into_arg);
  if (!into) return fail(std::move(into).error());
  result.into = *into;
  if (*into != head->branch) {
    git_reference* into_ref = nullptr;
    if (git_branch_lookup(&into_ref, repo, into->c_str(), GIT_BRANCH_LOCAL) == 0) {
      ReferencePtr owned(into_ref);
      if (git_branch_is_checked_out(into_ref) == 1) {
        return fail(make_error(Errc::invalid_input, "branch '" + *into +
                                                        "' is checked out in another worktree; "
                                                        "merge there"));
      }
    }
  }
  auto into_before = resolve_commit(repo, kHeads + *into);
  if (!into_before) return fail(std::move(into_before).error());
  auto theirs = their_commit(repo, branch);
  if (!theirs) return fail(std::move(theirs).error());

  MergeState state;
  state.branch = branch;
  state.into = *into;
  state.original_branch = head->branch;
  state.original_head = head->commit;
  state.into_before = oid_hex(git_commit_id(into_before->get()));
  state.stash_id = inherited_stash;
  result.stash_id = inherited_stash;

  auto clean = worktree_clean(repo);
  if (!clean) return fail(std::move(clean).error());
  if (!*clean) {
    if (!inherited_stash.empty()) {
      return fail(make_error(
          Errc::invalid_input,
          "the working tree of " + where + " has uncommitted changes; commit them first"));
    }
    auto stash =
        stash_save_in(repo, "corral merge " + branch + " into " + *into + ": work in progress",
                      /*include_untracked=*/true, options.signature);
    if (!stash) return fail(std::move(stash).error());
    state.stash_id = result.stash_id = *stash;
  }
  if (auto written = write_merge_state(repo, state); !written) {
    Error e = std::move(written).error();
    roll_back(repo, state, result);
    return fail(std::move(e));
  }
  if (head->branch != *into) {
    if (auto switched = switch_to(repo, *into, state.into_before); !switched) {
      Error e = std::move(switched).error();
      roll_back(repo, state, result);
      return fail(std::move(e));
    }
  }

  git_merge_analysis_t analysis;
  git_merge_preference_t preference;
  const git_annotated_commit* their_list[] = {theirs->get()};
  if (git_merge_analysis(&analysis, &preference, repo, their_list, 1) < 0) {
    Error e = git_failure(Errc::io_error, "cannot analyse the merge of '" + branch + "'");
    roll_back(repo, state, result);
    return fail(std::move(e));
  }
  if (analysis & GIT_MERGE_ANALYSIS_UP_TO_DATE) {
    result.outcome = MergeOutcome::up_to_date;
    result.merged_commit = state.into_before;
  } else if ((analysis & GIT_MERGE_ANALYSIS_FASTFORWARD) && options.fast_forward &&
             !(preference & GIT_MERGE_PREFERENCE_NO_FASTFORWARD)) {  // merge.ff=false
    auto moved = fast_forward(repo, *into, theirs->get(), branch);
    if (!moved) {
      Error e = std::move(moved).error();
      roll_back(repo, state, result);
      return fail(std::move(e));
    }
    result.outcome = MergeOutcome::fast_forward;
    result.merged_commit = *moved;
  } else {
    git_merge_options mo = GIT_MERGE_OPTIONS_INIT;
    git_checkout_options co = GIT_CHECKOUT_OPTIONS_INIT;
    co.checkout_strategy = GIT_CHECKOUT_SAFE | GIT_CHECKOUT_ALLOW_CONFLICTS;
    if (git_merge(repo, their_list, 1, &mo, &co) < 0) {
      Error e = git_failure(Errc::io_error, "cannot merge '" + branch + "' into '" + *into + "'");
      git_repository_state_cleanup(repo);
      roll_back(repo, state, result);
      return fail(std::move(e));
    }
    auto conflicts = conflicted_files(repo);
    if (!conflicts) return fail(std::move(conflicts).error());
    if (!conflicts->empty()) {
      // Leave everything for the user: markers, index conflicts, MERGE_HEAD, the stash, the record.
      result.success = false;
      result.has_conflicts = true;
      result.conflicted_files = std::move(*conflicts);
      result.outcome = MergeOutcome::conflicts;
      return result;
    }
    std::string message =
        options.message.empty() ? "Merge branch '" + branch + "' into " + *into : options.message;
    auto commit = make_merge_commit(repo, theirs->get(), message, options.signature);
    if (!commit) return fail(std::move(commit).error());
    result.outcome = MergeOutcome::merge_commit;
    result.merged_commit = *commit;
  }

  // Success: back to where the user was, with their work.
  bool back_home = true;
  if (head->branch != *into) {
    if (auto back = switch_to(repo, head->branch, head->commit); !back) {
      back_home = false;
      result.warnings.push_back(back.error().message + "; you are on '" + *into +
                                "' and your work stays in stash " + state.stash_id);
    }
  }
  if (!state.stash_id.empty() && back_home) {
    if (auto popped = stash_pop_in(repo, state.stash_id); popped) {
      result.stash_restored = true;
    } else {
      result.warnings.push_back(popped.error().message);
    }
  }
  if (auto removed = remove_merge_state(repo); !removed) {
    result.warnings.push_back(removed.error().describe());
  }
  result.success = true;
  return result;
}

}  // namespace detail

GitSandboxResult merge_branch(const std::string& repo_path, const std::string& branch,
                              const std::string& into, const MergeOptions& options) {
  auto repo = open_worktree_repository(repo_path);
  if (!repo) return GitSandboxResult::failure(std::move(repo).error());
  auto lock = MergeLock::acquire(repo->get());
  if (!lock) return GitSandboxResult::failure(std::move(lock).error());
  return merge_locked(repo->get(), branch, into, options, "");
}

Result<void> merge_abort(const std::string& repo_path) {
  auto repo_r = open_worktree_repository(repo_path);
  if (!repo_r) return std::move(repo_r).error();
  git_repository* repo = repo_r->get();
  const std::string where = workdir_of(repo);
  auto lock = MergeLock::acquire(repo);
  if (!lock) return std::move(lock).error();
  auto state_r = read_merge_state(repo);
  if (!state_r) return std::move(state_r).error();
  if (!*state_r) return make_error(Errc::not_found, "no corral merge in progress in " + where);
  const MergeState state = **state_r;
  auto head = read_head(repo);
  if (!head) return std::move(head).error();

  bool in_merge = git_repository_state(repo) != GIT_REPOSITORY_STATE_NONE;
  bool at_into = head->branch == state.into && head->commit == state.into_before;
  bool at_start = head->branch == state.original_branch && head->commit == state.original_head;
  if (at_into) {
    auto before = resolve_commit(repo, state.into_before);
    if (!before) return std::move(before).error();
    git_checkout_options co = GIT_CHECKOUT_OPTIONS_INIT;
    co.checkout_strategy = GIT_CHECKOUT_FORCE;
    if (git_reset(repo, reinterpret_cast<git_object*>(before->get()), GIT_RESET_HARD, &co) < 0) {
      return git_failure(Errc::io_error, "cannot reset '" + state.into + "' in " + where);
    }
    git_repository_state_cleanup(repo);
    if (head->branch != state.original_branch) {
      if (auto back = switch_to(repo, state.original_branch, state.original_head); !back)
        return back;
    }
  } else if (!at_start || in_merge) {
    (void)remove_merge_state(repo);
    std::string msg = "the corral merge of '" + state.branch + "' into '" + state.into + "' in " +
                      where + " was concluded outside corral (HEAD is now " +
                      head->commit.substr(0, 12) +
                      "); corral will not discard it and forgets "
                      "that merge";
    if (stash_exists_in(repo, state.stash_id)) {
      msg += "; your work from before it is stash " + state.stash_id +
             " (`git stash pop` restores it)";
    }
    return make_error(Errc::invalid_input, msg);
  }
  if (auto removed = remove_merge_state(repo); !removed) return removed;
  if (!state.stash_id.empty()) {
    if (auto popped = stash_pop_in(repo, state.stash_id); !popped) return popped;
  }
  return {};
}

Result<bool> merge_in_progress(const std::string& repo_path) {
  auto repo = open_worktree_repository(repo_path);
  if (!repo) return std::move(repo).error();
  auto state = read_merge_state(repo->get());
  if (!state) return std::move(state).error();
  return state->has_value();
}

}  // namespace corral::git
