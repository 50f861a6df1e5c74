// Repository queries: is_git_repository, is_worktree_clean, head_commit, current_branch.
#include "workspace/git_repo.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstring>

#include "workspace/git_handle.hpp"

namespace corral::git {

using namespace detail;

Result<bool> is_git_repository(const std::string& path) {
  auto repo = open_repository(path);
  if (repo) return true;
  if (repo.error().code == Errc::invalid_input) return false;  // "not a git repository"
  return std::move(repo).error();
}

Result<bool> is_worktree_clean(const std::string& repo_path) {
  auto repo = open_worktree_repository(repo_path);
  if (!repo) return std::move(repo).error();
  return worktree_clean(repo->get());
}

Result<std::string> head_commit(const std::string& repo_path) {
  auto repo = open_repository(repo_path);
  if (!repo) return std::move(repo).error();
  git_oid oid;
  int rc = git_reference_name_to_id(&oid, repo->get(), "HEAD");
  if (rc == GIT_ENOTFOUND || rc == GIT_EUNBORNBRANCH) {
    return make_error(Errc::invalid_input,
                      "git repository " + repo_path + " has no commit yet (HEAD is unborn)");
  }
  if (rc < 0) return git_failure(Errc::io_error, "cannot read HEAD of " + repo_path);
  return oid_hex(&oid);
}

Result<std::string> current_branch(const std::string& repo_path) {
  auto repo = open_repository(repo_path);
  if (!repo) return std::move(repo).error();
  git_reference* raw = nullptr;
  if (git_reference_lookup(&raw, repo->get(), "HEAD") < 0) {
    return git_failure(Errc::io_error, "cannot read HEAD of " + repo_path);
  }
  ReferencePtr head(raw);
  if (git_reference_type(head.get()) != GIT_REFERENCE_SYMBOLIC) return std::string();  // detached
  std::string target = git_reference_symbolic_target(head.get());
  const std::string prefix = "refs/heads/";
  if (target.rfind(prefix, 0) == 0) return target.substr(prefix.size());
  return target;
}

namespace {

Result<std::string> real_path(const std::string& path) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (!resolved) {
    Error e = make_error(Errc::not_found, "cannot resolve " + path + ": " + std::strerror(errno));
    e.file = path;
    return e;
  }
  std::string out = resolved;
  ::free(resolved);
  return out;
}

}  // namespace

Result<std::string> worktree_root(const std::string& path) {
  auto repo = open_worktree_repository(path);
  if (!repo) return std::move(repo).error();
  return real_path(git_repository_workdir(repo->get()));
}

Result<std::string> path_in_worktree(const std::string& path) {
  auto root = worktree_root(path);
  if (!root) return root;
  auto here = real_path(path);
  if (!here) return here;
  if (*here == *root) return std::string();
  if (here->rfind(*root + "/", 0) != 0) {
    return make_error(Errc::invalid_input, path + " is not inside the working tree " + *root +
                                               " (it is in its git dir)");
  }
  std::string rel = here->substr(root->size() + 1) + "/";
  if (rel == ".git/" || rel.rfind(".git/", 0) == 0) {
    return make_error(Errc::invalid_input, path + " is not inside the working tree " + *root +
                                               " (it is in its git dir)");
  }
  return rel;
}

}  // namespace corral::git
