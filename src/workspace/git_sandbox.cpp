// create_sandbox_branch / merge_sandbox_branch / cleanup_sandbox_branch (seed 003's flow).
#include "workspace/git_sandbox.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <vector>

#include "workspace/git_commit.hpp"
#include "workspace/git_handle.hpp"
#include "workspace/git_merge_state.hpp"
#include "workspace/git_stash.hpp"

namespace corral::git {

using namespace detail;

namespace {

std::string generated_name(const std::string& prefix) {
  time_t now = std::time(nullptr);
  tm utc;
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
  std::random_device rd;
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "%04x", static_cast<unsigned>(rd() & 0xffff));
  return prefix + "-" + stamp + "-" + suffix;
}

// Removes every `branch.NAME.*` entry from the repository's own config.
Result<void> remove_branch_config(git_repository* repo, const std::string& branch) {
  git_config* all = nullptr;
  if (git_repository_config(&all, repo) < 0) {
    return git_failure(Errc::io_error, "cannot read the config of " + workdir_of(repo));
  }
  Ptr<git_config, git_config_free> all_owned(all);
  git_config* local = nullptr;
  if (git_config_open_level(&local, all, GIT_CONFIG_LEVEL_LOCAL) < 0) return {};  // no local config
  Ptr<git_config, git_config_free> local_owned(local);
  const std::string prefix = "branch." + branch + ".";
  std::vector<std::string> names;
  git_config_iterator* it_raw = nullptr;
  if (git_config_iterator_new(&it_raw, local) < 0) {
    return git_failure(Errc::io_error, "cannot read the config of " + workdir_of(repo));
  }
  Ptr<git_config_iterator, git_config_iterator_free> it(it_raw);
  git_config_entry* entry = nullptr;
  while (git_config_next(&entry, it.get()) == 0) {
    if (std::string(entry->name).rfind(prefix, 0) == 0) names.emplace_back(entry->name);
  }
  for (const auto& name : names) {
    int rc = git_config_delete_entry(local, name.c_str());
    if (rc < 0 && rc != GIT_ENOTFOUND) {
      return git_failure(Errc::io_error, "cannot remove " + name + " from the config");
    }
  }
  return {};
}

}  // namespace

GitSandboxResult create_sandbox_branch(const std::string& repo_path,
                                       const SandboxBranchOptions& options) {
  auto repo_r = open_worktree_repository(repo_path);
  if (!repo_r) return GitSandboxResult::failure(std::move(repo_r).error());
  git_repository* repo = repo_r->get();
  const std::string where = workdir_of(repo);
  std::string branch = options.name.empty() ? generated_name(options.prefix) : options.name;
  if (auto ok = check_branch_name(branch); !ok)
    return GitSandboxResult::failure(std::move(ok).error());
  auto lock = MergeLock::acquire(repo);
  if (!lock) return GitSandboxResult::failure(std::move(lock).error());
  auto pending = read_merge_state(repo);
  if (!pending) return GitSandboxResult::failure(std::move(pending).error());
  if (*pending || git_repository_state(repo) != GIT_REPOSITORY_STATE_NONE) {
    return GitSandboxResult::failure(make_error(
        Errc::invalid_input, "a merge is in progress in " + where + "; finish or abort it first"));
  }
  auto head_branch = current_branch(where);
  if (!head_branch) return GitSandboxResult::failure(std::move(head_branch).error());
  if (head_branch->empty()) {
    return GitSandboxResult::failure(make_error(
        Errc::invalid_input, "HEAD is detached in " + where + "; check out a branch first"));
  }
  auto head = resolve_commit(repo, "HEAD");
  if (!head) return GitSandboxResult::failure(std::move(head).error());
  git_reference* existing = nullptr;
  if (git_branch_lookup(&existing, repo, branch.c_str(), GIT_BRANCH_LOCAL) == 0) {
    git_reference_free(existing);
    return GitSandboxResult::failure(
        make_error(Errc::invalid_input, "branch '" + branch + "' already exists"));
  }

  GitSandboxResult result;
  result.branch = branch;
  result.original_branch = *head_branch;
  auto clean = worktree_clean(repo);
  if (!clean) return GitSandboxResult::failure(std::move(clean).error());
  if (!*clean) {
    auto stash =
        stash_save_in(repo, "corral sandbox " + branch + ": work in progress on " + *head_branch,
                      /*include_untracked=*/true, options.signature);
    if (!stash) return GitSandboxResult::failure(std::move(stash).error());
    result.stash_id = *stash;
  }
  git_reference* created = nullptr;
  int rc = git_branch_create(&created, repo, branch.c_str(), head->get(), 0);
  if (rc == 0) {
    git_reference_free(created);
    rc = git_repository_set_head(repo, ("refs/heads/" + branch).c_str());
  }
  if (rc < 0) {
    Error e = rc == GIT_EEXISTS
                  ? make_error(Errc::invalid_input, "branch '" + branch + "' already exists")
                  : git_failure(Errc::io_error, "cannot create branch '" + branch + "'");
    GitSandboxResult f = GitSandboxResult::failure(std::move(e));
    if (!result.stash_id.empty()) {
      if (auto popped = stash_pop_in(repo, result.stash_id); !popped) {
        f.stash_id = result.stash_id;
        f.warnings.push_back(popped.error().message);
      }
    }
    return f;
  }
  result.success = true;
  return result;
}

GitSandboxResult merge_sandbox_branch(const std::string& repo_path, const GitSandboxResult& created,
                                      const MergeOptions& options) {
  auto repo_r = open_worktree_repository(repo_path);
  if (!repo_r) return GitSandboxResult::failure(std::move(repo_r).error());
  git_repository* repo = repo_r->get();
  const std::string where = workdir_of(repo);
  if (created.branch.empty() || created.original_branch.empty()) {
    return GitSandboxResult::failure(
        make_error(Errc::invalid_input,
                   "no sandbox branch to merge: pass what create_sandbox_branch returned"));
  }
  auto lock = MergeLock::acquire(repo);
  if (!lock) return GitSandboxResult::failure(std::move(lock).error());
  auto clean = worktree_clean(repo);
  if (!clean) return GitSandboxResult::failure(std::move(clean).error());
  if (!*clean) {
    return GitSandboxResult::failure(
        make_error(Errc::invalid_input, "the working tree of " + where +
                                            " has uncommitted changes; commit "
                                            "them to sandbox branch '" +
                                            created.branch + "' first"));
  }
  auto original = resolve_commit(repo, "refs/heads/" + created.original_branch);
  if (!original) return GitSandboxResult::failure(std::move(original).error());
  if (auto sw = switch_to(repo, created.original_branch, oid_hex(git_commit_id(original->get())));
      !sw) {
    return GitSandboxResult::failure(std::move(sw).error());
  }
  return merge_locked(repo, created.branch, created.original_branch, options, created.stash_id);
}

Result<void> cleanup_sandbox_branch(const std::string& repo_path, const std::string& branch) {
  auto repo_r = open_repository(repo_path);
  if (!repo_r) return std::move(repo_r).error();
  git_repository* repo = repo_r->get();
  if (auto ok = check_branch_name(branch); !ok) return ok;
  git_reference* raw = nullptr;
  if (git_branch_lookup(&raw, repo, branch.c_str(), GIT_BRANCH_LOCAL) != 0) {
    return make_error(Errc::not_found, "branch '" + branch + "' does not exist");
  }
  ReferencePtr ref(raw);
  if (git_branch_is_checked_out(ref.get()) == 1) {
    return make_error(Errc::invalid_input, "branch '" + branch + "' is checked out in " +
                                               workdir_of(repo) + "; switch away from it first");
  }
  // Not git_branch_delete: in libgit2 1.5 it removes the branch's config section through
  // git_regexp_match, which leaks its match data on every non-matching entry (fixed upstream
  // later). Deleting the reference (and its reflog) and the section's entries directly is the same.
  if (git_reference_delete(ref.get()) < 0) {
    return git_failure(Errc::io_error, "cannot delete branch '" + branch + "'");
  }
  return remove_branch_config(repo, branch);
}

}  // namespace corral::git
