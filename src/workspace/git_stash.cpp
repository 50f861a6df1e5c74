// stash_save / stash_pop over libgit2's git_stash_*, addressing stashes by oid.
#include "workspace/git_stash.hpp"

#include <optional>

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
  git_stash_apply_options opts = GIT_STASH_APPLY_OPTIONS_INIT;
  opts.flags = GIT_STASH_APPLY_REINSTATE_INDEX;
  int rc = git_stash_pop(repo, *index, &opts);
  if (rc == GIT_ECONFLICT || rc == GIT_EMERGECONFLICT) {
    // What was staged cannot be restored as staged; `git stash pop` without --index would still
    // bring the changes back, so try that before giving up.
    opts.flags = GIT_STASH_APPLY_DEFAULT;
    rc = git_stash_pop(repo, *index, &opts);
  }
  if (rc == GIT_ECONFLICT || rc == GIT_EMERGECONFLICT) {
    return make_error(Errc::invalid_input,
                      "stash " + label + " conflicts with the working tree of " +
                          workdir_of(repo) + "; it is kept: resolve with `git stash pop`");
  }
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
