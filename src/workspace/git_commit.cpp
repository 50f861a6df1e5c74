// commit_changes: base tree + changes in an in-memory index -> tree -> commit -> new branch.
// An in-memory index (not the repository's) keeps the user's staging area untouched, and its
// add/remove already handle file<->directory replacement and whole-subtree removal.
#include "workspace/git_commit.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "linux/fd.hpp"
#include "workspace/git_handle.hpp"

namespace corral::git {

using namespace detail;

namespace {

bool valid_change_path(const std::string& path) {
  if (path.empty() || path.front() == '/' || path.find('\0') != std::string::npos) return false;
  size_t start = 0;
  while (true) {
    size_t end = path.find('/', start);
    std::string part =
        path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (strcasecmp(part.c_str(), ".git") == 0) return false;
    if (end == std::string::npos) return true;
    start = end + 1;
  }
}

Error invalid_path(const std::string& path) {
  return make_error(Errc::invalid_input,
                    "invalid path in change: '" + path +
                        "' (must be relative to the repository, without '.', '..' or '.git')");
}

Error source_error(const std::string& source, const std::string& path, int err) {
  Error e = make_error(Errc::io_error, "cannot read source '" + source + "' of '" + path +
                                           "': " + std::strerror(err));
  e.file = source;
  return e;
}

// A regular file's content as a blob, through the clean filters that apply to `path`.
Result<git_oid> write_file_blob(git_repository* repo, const std::string& source,
                                const std::string& path) {
  UniqueFd fd(::open(source.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return source_error(source, path, errno);
  git_writestream* stream = nullptr;
  if (git_blob_create_from_stream(&stream, repo, path.c_str()) < 0) {
    return git_failure(Errc::io_error, "cannot start a blob for '" + path + "'");
  }
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      stream->free(stream);
      return source_error(source, path, err);
    }
    if (n == 0) break;
    if (stream->write(stream, buf, static_cast<size_t>(n)) < 0) {
      stream->free(stream);
      return git_failure(Errc::io_error, "cannot write the blob of '" + path + "'");
    }
  }
  git_oid oid;
  if (git_blob_create_from_stream_commit(&oid, stream) < 0) {
    return git_failure(Errc::io_error, "cannot write the blob of '" + path + "'");
  }
  return oid;
}

Result<git_oid> write_symlink_blob(git_repository* repo, const std::string& source,
                                   const std::string& path) {
  std::string target(4096, '\0');
  ssize_t n = ::readlink(source.c_str(), target.data(), target.size());
  if (n < 0) return source_error(source, path, errno);
  target.resize(static_cast<size_t>(n));
  git_oid oid;
  if (git_blob_create_from_buffer(&oid, repo, target.data(), target.size()) < 0) {
    return git_failure(Errc::io_error, "cannot write the symlink blob of '" + path + "'");
  }
  return oid;
}

Result<void> add_entry(git_index* index, const git_oid& oid, uint32_t mode,
                       const std::string& path) {
  git_index_entry entry;
  std::memset(&entry, 0, sizeof entry);
  entry.mode = mode;
  entry.id = oid;
  entry.path = path.c_str();
  if (git_index_add(index, &entry) < 0) {
    return git_failure(Errc::invalid_input, "cannot add '" + path + "' to the commit");
  }
  return {};
}

// Adds `source` (file, symlink or directory tree) at `path`.
Result<void> upsert(git_repository* repo, git_index* index, const std::string& source,
                    const std::string& path) {
  if (!valid_change_path(path)) return invalid_path(path);
  struct stat st;
  if (::lstat(source.c_str(), &st) != 0) return source_error(source, path, errno);
  if (S_ISLNK(st.st_mode)) {
    auto oid = write_symlink_blob(repo, source, path);
    if (!oid) return std::move(oid).error();
    return add_entry(index, *oid, GIT_FILEMODE_LINK, path);
  }
  if (S_ISREG(st.st_mode)) {
    auto oid = write_file_blob(repo, source, path);
    if (!oid) return std::move(oid).error();
    uint32_t mode = (st.st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
    return add_entry(index, *oid, mode, path);
  }
  if (S_ISDIR(st.st_mode)) {
    DIR* dir = ::opendir(source.c_str());
    if (!dir) return source_error(source, path, errno);
    std::vector<std::string> names;
    while (dirent* d = ::readdir(dir)) {
      std::string name = d->d_name;
      if (name != "." && name != "..") names.push_back(std::move(name));
    }
    ::closedir(dir);
    for (const auto& name : names) {
      auto r = upsert(repo, index, source + "/" + name, path + "/" + name);
      if (!r) return r;
    }
    return {};
  }
  Error e = make_error(Errc::invalid_input, "source '" + source + "' of '" + path +
                                                "' is not a regular file, symlink or directory");
  e.file = source;
  return e;
}

Result<void> remove_path(git_index* index, const std::string& path) {
  if (!valid_change_path(path)) return invalid_path(path);
  if (git_index_get_bypath(index, path.c_str(), 0) != nullptr) {
    if (git_index_remove(index, path.c_str(), 0) < 0) {
      return git_failure(Errc::internal, "cannot remove '" + path + "'");
    }
    return {};
  }
  if (git_index_remove_directory(index, path.c_str(), 0) < 0) {
    return git_failure(Errc::internal, "cannot remove directory '" + path + "'");
  }
  return {};
}

bool branch_exists(git_repository* repo, const std::string& branch) {
  git_reference* ref = nullptr;
  if (git_branch_lookup(&ref, repo, branch.c_str(), GIT_BRANCH_LOCAL) != 0) return false;
  git_reference_free(ref);
  return true;
}

bool branch_is_head(git_repository* repo, const std::string& branch) {
  git_reference* ref = nullptr;
  if (git_branch_lookup(&ref, repo, branch.c_str(), GIT_BRANCH_LOCAL) != 0) return false;
  ReferencePtr owned(ref);
  return git_branch_is_head(ref) == 1 || git_branch_is_checked_out(ref) == 1;
}

}  // namespace

Result<void> check_branch_name(const std::string& branch) {
  ensure_libgit2();
  int valid = 0;
  if (branch.empty() || git_branch_name_is_valid(&valid, branch.c_str()) < 0 || !valid) {
    return make_error(Errc::invalid_input, "invalid branch name '" + branch + "'");
  }
  return {};
}

Result<std::string> commit_changes(const std::string& repo_path, const std::string& base_commit,
                                   const std::vector<GitChange>& changes, const std::string& branch,
                                   const std::string& message, const CommitOptions& options) {
  auto repo_r = open_repository(repo_path);
  if (!repo_r) return std::move(repo_r).error();
  git_repository* repo = repo_r->get();
  if (auto ok = check_branch_name(branch); !ok) return std::move(ok).error();
  if (branch_exists(repo, branch)) {
    if (!options.force)
      return make_error(Errc::invalid_input, "branch '" + branch + "' already exists");
    if (branch_is_head(repo, branch)) {
      return make_error(Errc::invalid_input, "branch '" + branch + "' is checked out in " +
                                                 workdir_of(repo) + "; corral will not move it");
    }
  }
  auto base = resolve_commit(repo, base_commit);
  if (!base) return std::move(base).error();

  git_tree* base_tree_raw = nullptr;
  if (git_commit_tree(&base_tree_raw, base->get()) < 0) {
    return git_failure(Errc::io_error, "cannot read the tree of '" + base_commit + "'");
  }
  TreePtr base_tree(base_tree_raw);
  git_index* index_raw = nullptr;
  if (git_index_new(&index_raw) < 0) return git_failure(Errc::internal, "cannot create an index");
  IndexPtr index(index_raw);
  if (git_index_read_tree(index.get(), base_tree.get()) < 0) {
    return git_failure(Errc::io_error, "cannot load the tree of '" + base_commit + "'");
  }
  for (const auto& c : changes) {
    if (c.op != GitChange::Op::remove) continue;
    if (auto r = remove_path(index.get(), c.path); !r) return std::move(r).error();
  }
  for (const auto& c : changes) {
    if (c.op != GitChange::Op::upsert) continue;
    if (auto r = upsert(repo, index.get(), c.source, c.path); !r) return std::move(r).error();
  }
  git_oid tree_oid;
  if (git_index_write_tree_to(&tree_oid, index.get(), repo) < 0) {
    return git_failure(Errc::io_error, "cannot write the tree for branch '" + branch + "'");
  }
  git_tree* tree_raw = nullptr;
  if (git_tree_lookup(&tree_raw, repo, &tree_oid) < 0) {
    return git_failure(Errc::io_error, "cannot read back the tree for branch '" + branch + "'");
  }
  TreePtr tree(tree_raw);

  auto sig = signature_for(repo, options.signature.name, options.signature.email);
  if (!sig) return std::move(sig).error();
  std::string msg = message.empty() ? std::string("corral: sandbox changes") : message;
  if (msg.back() != '\n') msg.push_back('\n');
  const git_commit* parents[] = {base->get()};
  git_oid commit_oid;
  if (git_commit_create(&commit_oid, repo, nullptr, sig->get(), sig->get(), nullptr, msg.c_str(),
                        tree.get(), 1, parents) < 0) {
    return git_failure(Errc::io_error, "cannot create the commit for branch '" + branch + "'");
  }
  git_commit* commit_raw = nullptr;
  if (git_commit_lookup(&commit_raw, repo, &commit_oid) < 0) {
    return git_failure(Errc::io_error, "cannot read back the commit for branch '" + branch + "'");
  }
  CommitPtr commit(commit_raw);
  git_reference* ref = nullptr;
  int rc = git_branch_create(&ref, repo, branch.c_str(), commit.get(), options.force ? 1 : 0);
  if (rc == GIT_EEXISTS) {  // another sandbox created it since the check above
    return make_error(Errc::invalid_input, "branch '" + branch + "' already exists");
  }
  if (rc < 0) return git_failure(Errc::io_error, "cannot create branch '" + branch + "'");
  git_reference_free(ref);
  return oid_hex(&commit_oid);
}

}  // namespace corral::git
