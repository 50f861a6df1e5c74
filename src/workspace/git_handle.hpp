// Internal to src/workspace/git_*: owning handles for libgit2 objects, one-time library
// initialisation, and libgit2 failures turned into corral::Error. Not part of the public API.
#pragma once

#include <git2.h>

#include <memory>
#include <string>

#include "common/result.hpp"

namespace corral::git::detail {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
template <typename T, void (*Free)(T*)>
using Ptr = std::unique_ptr<T, Deleter<T, Free>>;

using RepoPtr = Ptr<git_repository, git_repository_free>;
using ReferencePtr = Ptr<git_reference, git_reference_free>;
using ObjectPtr = Ptr<git_object, git_object_free>;
using CommitPtr = Ptr<git_commit, git_commit_free>;
using TreePtr = Ptr<git_tree, git_tree_free>;
using IndexPtr = Ptr<git_index, git_index_free>;
using SignaturePtr = Ptr<git_signature, git_signature_free>;
using StatusListPtr = Ptr<git_status_list, git_status_list_free>;
using AnnotatedCommitPtr = Ptr<git_annotated_commit, git_annotated_commit_free>;
using ConflictIteratorPtr = Ptr<git_index_conflict_iterator, git_index_conflict_iterator_free>;

// git_libgit2_init exactly once per process (thread-safe); never shut down, so handles
// created by any thread stay valid until exit.
void ensure_libgit2();

// "WHAT: <libgit2's last error message>".
Error git_failure(Errc code, const std::string& what);

// Opens the repository containing `path` (searching upwards like git does).
// Error "not a git repository: PATH" when there is none.
Result<RepoPtr> open_repository(const std::string& path);
// As open_repository, and refuses a bare repository (the operation needs a working tree).
Result<RepoPtr> open_worktree_repository(const std::string& path);

// The working tree's directory, without the trailing slash, for messages.
std::string workdir_of(git_repository* repo);

// Resolves any revision (hex oid, branch, tag, "HEAD~1") to a commit.
// Error "unknown ref 'SPEC'" when it names nothing, or names something that is not a commit.
Result<CommitPtr> resolve_commit(git_repository* repo, const std::string& spec);

// `user.name`/`user.email` from the repository's config, else "corral <corral@localhost>".
Result<SignaturePtr> signature_for(git_repository* repo, const std::string& name,
                                   const std::string& email);

std::string oid_hex(const git_oid* oid);

// No staged, unstaged or untracked changes (ignored files do not count).
Result<bool> worktree_clean(git_repository* repo);

}  // namespace corral::git::detail
