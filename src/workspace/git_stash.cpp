// stash_save / stash_pop over libgit2's git_stash_*, addressing stashes by oid.
#include "workspace/git_stash.hpp"

#include <unistd.h>

#include <optional>
#include <vector>

#include "workspace/git_handle.hpp"

namespace corral::git {

namespace detail {

namespace {

// Position of `stash_id` in the stash list (0 = newest); nullopt when absent.
std::optional<size_t> stash_index(git_repository* repo, const std::string& stash_id) {
  struct Search {
    std::string id;
    std::optional<size_t> found;
  } search{stash_id, std::nullopt};
  git_stash_foreach(
      repo,
      [](size_t index, const char*, const git_oid* oid, void* payload) {
        auto* s = static_cast<Search*>(payload);
        if (s->id.empty() || oid_hex(oid) == s->id) {
          s->found = index;
          return 1;  // stop
        }
        return 0;
      },
      &search);
  return search.found;
}

Result<TreePtr> tree_of(git_repository* repo, const git_oid* commit_oid) {
  git_commit* commit = nullptr;
  if (git_commit_lookup(&commit, repo, commit_oid) < 0) {
    return git_failure(Errc::io_error, "cannot read stash commit " + oid_hex(commit_oid));
  }
  CommitPtr owned(commit);
  git_tree* tree = nullptr;
  if (git_commit_tree(&tree, commit) < 0) {
    return git_failure(Errc::io_error, "cannot read the tree of " + oid_hex(commit_oid));
  }
  return TreePtr(tree);
}

// The paths where re-applying stash `id` on the current index and working tree would conflict.
// libgit2's git_stash_pop writes conflict markers and drops the stash anyway (unlike git,
// which keeps it), so conflicts are found in memory first and nothing is touched then.
Result<std::vector<std::string>> stash_conflicts(git_repository* repo, const std::string& id) {
  git_oid stash_oid;
  if (git_oid_fromstr(&stash_oid, id.c_str()) < 0) {
    return make_error(Errc::invalid_input, "invalid stash id '" + id + "'");
  }
  git_commit* raw = nullptr;
  if (git_commit_lookup(&raw, repo, &stash_oid) < 0) {
    return git_failure(Errc::io_error, "cannot read stash " + id);
  }
  CommitPtr stash(raw);
  auto stash_tree = tree_of(repo, &stash_oid);
  if (!stash_tree) return std::move(stash_tree).error();
  auto base_tree = tree_of(repo, git_commit_parent_id(stash.get(), 0));
  if (!base_tree) return std::move(base_tree).error();

  git_index* index_raw = nullptr;
  if (git_repository_index(&index_raw, repo) < 0) {
    return git_failure(Errc::io_error, "cannot read the index of " + workdir_of(repo));
  }
  IndexPtr index(index_raw);
  if (git_index_has_conflicts(index.get())) {
    return make_error(Errc::invalid_input, "the index of " + workdir_of(repo) +
                                               " has unresolved conflicts; resolve them first");
  }
  git_oid index_tree_oid;
  if (git_index_write_tree(&index_tree_oid, index.get()) < 0) {
    return git_failure(Errc::io_error, "cannot read the index of " + workdir_of(repo));
  }
  git_tree* index_tree_raw = nullptr;
  if (git_tree_lookup(&index_tree_raw, repo, &index_tree_oid) < 0) {
    return git_failure(Errc::io_error, "cannot read the index of " + workdir_of(repo));
  }
  TreePtr index_tree(index_tree_raw);
  git_index* merged_raw = nullptr;
  if (git_merge_trees(&merged_raw, repo, base_tree->get(), index_tree.get(), stash_tree->get(),
                      nullptr) < 0) {
    return git_failure(Errc::io_error, "cannot compare stash " + id + " with the index");
  }
  IndexPtr merged(merged_raw);
  std::vector<std::string> paths;
  if (git_index_has_conflicts(merged.get())) {
    git_index_conflict_iterator* it_raw = nullptr;
    if (git_index_conflict_iterator_new(&it_raw, merged.get()) == 0) {
      ConflictIteratorPtr it(it_raw);
      const git_index_entry *ancestor, *ours, *theirs;
      while (git_index_conflict_next(&ancestor, &ours, &theirs, it.get()) == 0) {
        const git_index_entry* e = ours ? ours : theirs ? theirs : ancestor;
        if (e && (paths.empty() || paths.back() != e->path)) paths.emplace_back(e->path);
      }
    }
  }
  // Untracked files of the stash (its third parent) must not exist in the working tree.
  if (git_commit_parentcount(stash.get()) >= 3) {
    auto untracked = tree_of(repo, git_commit_parent_id(stash.get(), 2));
    if (!untracked) return std::move(untracked).error();
    struct Walk {
      std::string workdir;
      std::vector<std::string>* paths;
    } walk{git_repository_workdir(repo), &paths};
    git_tree_walk(
        untracked->get(), GIT_TREEWALK_PRE,
        [](const char* root, const git_tree_entry* entry, void* payload) {
          if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB) return 0;
          auto* w = static_cast<Walk*>(payload);
          std::string rel = std::string(root) + git_tree_entry_name(entry);
          if (::access((w->workdir + rel).c_str(), F_OK) == 0) w->paths->push_back(rel);
          return 0;
        },
        &walk);
  }
  return paths;
}

Error conflict_error(git_repository* repo, const std::string& label,
                     const std::vector<std::string>& paths) {
  std::string list;
  for (const auto& p : paths) list += (list.empty() ? "" : ", ") + p;
  return make_error(Errc::invalid_input, "stash " + label + " conflicts with the working tree of " +
                                             workdir_of(repo) +
                                             (list.empty() ? "" : " in " + list) +
                                             "; it is kept: resolve with `git stash pop`");
}

}  // namespace

Result<std::string> stash_save_in(git_repository* repo, const std::string& message,
                                  bool include_untracked, const GitSignature& signature) {
  auto sig = signature_for(repo, signature.name, signature.email);
  if (!sig) return std::move(sig).error();
  git_oid oid;
  uint32_t flags = include_untracked ? GIT_STASH_INCLUDE_UNTRACKED : GIT_STASH_DEFAULT;
  int rc = git_stash_save(&oid, repo, sig->get(), message.c_str(), flags);
  if (rc == GIT_ENOTFOUND) {
    return make_error(Errc::not_found, "nothing to stash in " + workdir_of(repo));
  }
  if (rc < 0) return git_failure(Errc::io_error, "cannot stash the changes in " + workdir_of(repo));
  return oid_hex(&oid);
}

Result<void> stash_pop_in(git_repository* repo, const std::string& stash_id) {
  auto index = stash_index(repo, stash_id);
  std::string label = stash_id.empty() ? std::string("(newest)") : stash_id;
  if (!index) return make_error(Errc::not_found, "no stash " + label + " in " + workdir_of(repo));
  std::string id = stash_id;
  if (id.empty()) {
    git_oid top;
    if (git_reference_name_to_id(&top, repo, "refs/stash") < 0) {
      return git_failure(Errc::io_error, "cannot read refs/stash");
    }
    id = oid_hex(&top);
  }
  auto conflicts = stash_conflicts(repo, id);
  if (!conflicts) return std::move(conflicts).error();
  if (!conflicts->empty()) return conflict_error(repo, label, *conflicts);
  git_stash_apply_options opts = GIT_STASH_APPLY_OPTIONS_INIT;
  opts.flags = GIT_STASH_APPLY_REINSTATE_INDEX;
  int rc = git_stash_pop(repo, *index, &opts);
  if (rc == GIT_ECONFLICT || rc == GIT_EMERGECONFLICT) {
    // What was staged cannot be restored as staged; `git stash pop` without --index would still
    // bring the changes back, so try that before giving up.
    opts.flags = GIT_STASH_APPLY_DEFAULT;
    rc = git_stash_pop(repo, *index, &opts);
  }
  if (rc == GIT_ECONFLICT || rc == GIT_EMERGECONFLICT) return conflict_error(repo, label, {});
  if (rc < 0) return git_failure(Errc::io_error, "cannot pop stash " + label);
  return {};
}

bool stash_exists_in(git_repository* repo, const std::string& stash_id) {
  return !stash_id.empty() && stash_index(repo, stash_id).has_value();
}

}  // namespace detail

Result<std::string> stash_save(const std::string& repo, const std::string& message,
                               bool include_untracked, const GitSignature& signature) {
  auto r = detail::open_worktree_repository(repo);
  if (!r) return std::move(r).error();
  return detail::stash_save_in(r->get(), message, include_untracked, signature);
}

Result<void> stash_pop(const std::string& repo, const std::string& stash_id) {
  auto r = detail::open_worktree_repository(repo);
  if (!r) return std::move(r).error();
  return detail::stash_pop_in(r->get(), stash_id);
}

}  // namespace corral::git
