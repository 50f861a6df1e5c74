// is_git_repository, is_worktree_clean, head_commit, current_branch on real repositories.
#include "workspace/git_repo.hpp"

#include <gtest/gtest.h>

#include "git_test_support.hpp"

namespace corral::git {
namespace {

using test::TempDir;
using test::TempRepo;

TEST(GitRepo, IsGitRepositoryInsideAndOutside) {
  TempRepo repo;
  repo.write("sub/file", "x");
  EXPECT_TRUE(is_git_repository(repo.path()).value());
  EXPECT_TRUE(is_git_repository(repo.path() + "/sub").value());
  TempDir plain;
  auto r = is_git_repository(plain.path());
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
}

TEST(GitRepo, WorktreeCleanCountsUntrackedStagedAndModifiedButNotIgnored) {
  TempRepo repo;
  EXPECT_TRUE(is_worktree_clean(repo.path()).value());
  repo.commit_file(".gitignore", "*.log\n", "ignore logs");
  repo.write("build.log", "ignored");
  EXPECT_TRUE(is_worktree_clean(repo.path()).value());
  repo.write("new.txt", "untracked");
  EXPECT_FALSE(is_worktree_clean(repo.path()).value());
  repo.git("add new.txt");
  EXPECT_FALSE(is_worktree_clean(repo.path()).value());  // staged
  repo.git("commit -q -m new");
  EXPECT_TRUE(is_worktree_clean(repo.path()).value());
  repo.write("README", "changed\n");
  EXPECT_FALSE(is_worktree_clean(repo.path()).value());
}

TEST(GitRepo, HeadCommitIsGitsHead) {
  TempRepo repo;
  EXPECT_EQ(head_commit(repo.path()).value(), repo.rev("HEAD"));
  repo.commit_file("a", "a", "second");
  EXPECT_EQ(head_commit(repo.path()).value(), repo.rev("HEAD"));
}

TEST(GitRepo, CurrentBranchAndDetachedHead) {
  TempRepo repo;
  EXPECT_EQ(current_branch(repo.path()).value(), "main");
  repo.git("checkout -q -b feature");
  EXPECT_EQ(current_branch(repo.path()).value(), "feature");
  repo.git("checkout -q --detach");
  EXPECT_EQ(current_branch(repo.path()).value(), "");
}

TEST(GitRepo, UnbornHeadIsAnError) {
  TempDir dir;
  test::sh("git init -q -b main " + test::quote(dir.path()));
  auto r = head_commit(dir.path());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("has no commit yet"), std::string::npos) << r.error().message;
  EXPECT_EQ(current_branch(dir.path()).value(), "main");
}

TEST(GitRepo, NotARepositoryNamesThePath) {
  TempDir plain;
  for (auto r : {is_worktree_clean(plain.path())}) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "not a git repository: " + plain.path());
    EXPECT_EQ(r.error().code, Errc::invalid_input);
  }
  auto h = head_commit(plain.path());
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().message, "not a git repository: " + plain.path());
  auto b = current_branch(plain.path() + "/missing");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().message, "not a git repository: " + plain.path() + "/missing");
}

TEST(GitRepo, BareRepositoryHasNoWorktree) {
  TempDir dir;
  test::sh("git init -q --bare " + test::quote(dir.path()));
  auto r = is_worktree_clean(dir.path());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("is bare"), std::string::npos) << r.error().message;
}

TEST(GitRepo, WorktreeRootAndPathInWorktree) {
  TempRepo repo;
  repo.write("src/lib/x.c", "x");
  std::string root = worktree_root(repo.path() + "/src/lib").value();
  EXPECT_EQ(root, test::trim(repo.git("rev-parse --show-toplevel")));
  EXPECT_EQ(path_in_worktree(repo.path()).value(), "");
  EXPECT_EQ(path_in_worktree(repo.path() + "/src").value(), "src/");
  EXPECT_EQ(path_in_worktree(repo.path() + "/src/lib/").value(), "src/lib/");
  auto gitdir = path_in_worktree(repo.path() + "/.git/refs");
  ASSERT_FALSE(gitdir.ok());
  EXPECT_NE(gitdir.error().message.find("is not inside the working tree"), std::string::npos);
  TempDir plain;
  EXPECT_EQ(path_in_worktree(plain.path()).error().message,
            "not a git repository: " + plain.path());
}

}  // namespace
}  // namespace corral::git
