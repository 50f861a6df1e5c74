// libgit2 plumbing shared by the git_* files: init once, open, resolve, error text.
#include "workspace/git_handle.hpp"

#include <mutex>

namespace corral::git::detail {

void ensure_libgit2() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

Error git_failure(Errc code, const std::string& what) {
  const git_error* last = git_error_last();
  std::string detail = last && last->message ? last->message : "unknown libgit2 error";
  return make_error(code, what + ": " + detail);
}

Result<RepoPtr> open_repository(const std::string& path) {
  ensure_libgit2();
  git_repository* raw = nullptr;
  int rc = git_repository_open_ext(&raw, path.c_str(), 0, nullptr);
  if (rc == GIT_ENOTFOUND) {
    Error e = make_error(Errc::invalid_input, "not a git repository: " + path);
    e.file = path;
    return e;
  }
  if (rc < 0) {
    Error e = git_failure(Errc::io_error, "cannot open git repository " + path);
    e.file = path;
    return e;
  }
  return RepoPtr(raw);
}

Result<RepoPtr> open_worktree_repository(const std::string& path) {
  auto repo = open_repository(path);
  if (!repo) return repo;
  if (git_repository_is_bare(repo->get())) {
    Error e = make_error(Errc::invalid_input,
                         "git repository " + path + " is bare: this needs a working tree");
    e.file = path;
    return e;
  }
  return repo;
}

std::string workdir_of(git_repository* repo) {
  const char* dir = git_repository_workdir(repo);
  std::string s = dir ? dir : git_repository_path(repo);
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

Result<CommitPtr> resolve_commit(git_repository* repo, const std::string& spec) {
  git_object* obj = nullptr;
  if (spec.empty() || git_revparse_single(&obj, repo, spec.c_str()) < 0) {
    return make_error(Errc::not_found, "unknown ref '" + spec + "' in " + workdir_of(repo));
  }
  ObjectPtr owned(obj);
  git_object* peeled = nullptr;
  if (git_object_peel(&peeled, owned.get(), GIT_OBJECT_COMMIT) < 0) {
    return make_error(Errc::invalid_input,
                      "ref '" + spec + "' in " + workdir_of(repo) + " does not name a commit");
  }
  return CommitPtr(reinterpret_cast<git_commit*>(peeled));
}

Result<SignaturePtr> signature_for(git_repository* repo, const std::string& name,
                                   const std::string& email) {
  git_signature* sig = nullptr;
  if (!name.empty() || !email.empty()) {
    if (git_signature_now(&sig, name.empty() ? "corral" : name.c_str(),
                          email.empty() ? "corral@localhost" : email.c_str()) < 0) {
      return git_failure(Errc::invalid_input, "invalid signature '" + name + " <" + email + ">'");
    }
    return SignaturePtr(sig);
  }
  if (git_signature_default(&sig, repo) == 0) return SignaturePtr(sig);
  if (git_signature_now(&sig, "corral", "corral@localhost") < 0) {
    return git_failure(Errc::internal, "cannot create the default signature");
  }
  return SignaturePtr(sig);
}

std::string oid_hex(const git_oid* oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, oid);
  return buf;
}

Result<bool> worktree_clean(git_repository* repo) {
  git_status_options opts = GIT_STATUS_OPTIONS_INIT;
  opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
  opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED;
  git_status_list* raw = nullptr;
  if (git_status_list_new(&raw, repo, &opts) < 0) {
    return git_failure(Errc::io_error, "cannot read the status of " + workdir_of(repo));
  }
  StatusListPtr list(raw);
  return git_status_list_entrycount(list.get()) == 0;
}

}  // namespace corral::git::detail
