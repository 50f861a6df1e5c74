// Seed 003's branch sandbox (create / merge / cleanup) and the merge lock, on real repositories.
#include "workspace/git_sandbox.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>

#include <thread>

#include "git_test_support.hpp"
#include "linux/fd.hpp"
#include "workspace/git_commit.hpp"

namespace corral::git {
namespace {

using test::TempDir;
using test::TempRepo;

TEST(GitSandbox, CreateWorkMergeCleanupRestoresTheUsersWork) {
  TempRepo repo;
  std::string base = repo.rev("HEAD");
  repo.write("README", "user's edit\n");
  repo.write("untracked.txt", "user's file\n");

  auto created = create_sandbox_branch(repo.path());
  ASSERT_TRUE(created.success) << created.error;
  EXPECT_EQ(created.branch.rfind("corral-sandbox-", 0), 0u) << created.branch;
  EXPECT_EQ(created.original_branch, "main");
  ASSERT_NE(created.stash_id, "");
  EXPECT_EQ(test::trim(repo.git("symbolic-ref --short HEAD")), created.branch);
  EXPECT_EQ(repo.status(), "");  // the agent starts from a clean HEAD

  repo.commit_file("agent.txt", "agent\n", "agent work");  // the agent works on its branch
  auto merged = merge_sandbox_branch(repo.path(), created);
  ASSERT_TRUE(merged.success) << merged.error;
  EXPECT_EQ(merged.outcome, MergeOutcome::fast_forward);
  EXPECT_TRUE(merged.stash_restored);
  EXPECT_EQ(test::trim(repo.git("symbolic-ref --short HEAD")), "main");
  EXPECT_EQ(repo.rev("main^"), base);
  EXPECT_EQ(repo.read("agent.txt"), "agent\n");
  EXPECT_EQ(repo.read("README"), "user's edit\n");
  EXPECT_EQ(repo.read("untracked.txt"), "user's file\n");
  EXPECT_EQ(repo.git("stash list"), "");

  repo.git("config branch." + created.branch + ".description 'agent run'");
  ASSERT_TRUE(cleanup_sandbox_branch(repo.path(), created.branch).ok());
  EXPECT_EQ(repo.git("branch --list " + created.branch), "");
  EXPECT_EQ(repo.git("config --get-regexp '^branch\\.'", /*allow_fail=*/true), "");
  EXPECT_FALSE(repo.exists(".git/logs/refs/heads/" + created.branch));
  EXPECT_EQ(repo.git("fsck --no-progress --no-dangling"), "");
}

TEST(GitSandbox, ConflictKeepsTheCreateStashAndAbortRestoresIt) {
  TempRepo repo;
  repo.write("wip.txt", "user's wip\n");
  SandboxBranchOptions opts;
  opts.name = "agent-x";
  auto created = create_sandbox_branch(repo.path(), opts);
  ASSERT_TRUE(created.success) << created.error;
  EXPECT_EQ(created.branch, "agent-x");
  repo.commit_file("README", "agent\n", "agent");
  repo.git("checkout -q main");
  repo.commit_file("README", "user\n", "user");
  std::string user_head = repo.rev("HEAD");
  repo.git("checkout -q agent-x");

  auto merged = merge_sandbox_branch(repo.path(), created);
  ASSERT_TRUE(merged.has_conflicts) << merged.error;
  EXPECT_EQ(merged.conflicted_files, std::vector<std::string>{"README"});
  EXPECT_EQ(merged.stash_id, created.stash_id);
  EXPECT_EQ(repo.rev("stash@{0}"), created.stash_id);

  ASSERT_TRUE(merge_abort(repo.path()).ok());
  EXPECT_EQ(test::trim(repo.git("symbolic-ref --short HEAD")), "main");
  EXPECT_EQ(repo.rev("HEAD"), user_head);
  EXPECT_EQ(repo.read("wip.txt"), "user's wip\n");
  EXPECT_EQ(repo.git("stash list"), "");
}

TEST(GitSandbox, BadInputNamesWhatIsWrong) {
  TempRepo repo;
  TempDir plain;
  EXPECT_EQ(create_sandbox_branch(plain.path()).error, "not a git repository: " + plain.path());
  repo.git("branch taken");
  SandboxBranchOptions opts;
  opts.name = "taken";
  EXPECT_EQ(create_sandbox_branch(repo.path(), opts).error, "branch 'taken' already exists");
  opts.name = "bad..name";
  EXPECT_EQ(create_sandbox_branch(repo.path(), opts).error, "invalid branch name 'bad..name'");

  auto missing = cleanup_sandbox_branch(repo.path(), "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "branch 'nope' does not exist");
  auto current = cleanup_sandbox_branch(repo.path(), "main");
  ASSERT_FALSE(current.ok());
  EXPECT_EQ(current.error().message,
            "branch 'main' is checked out in " + repo.path() + "; switch away from it first");

  GitSandboxResult none;
  EXPECT_EQ(merge_sandbox_branch(repo.path(), none).error,
            "no sandbox branch to merge: pass what create_sandbox_branch returned");
  opts.name = "dirty";
  auto created = create_sandbox_branch(repo.path(), opts);
  ASSERT_TRUE(created.success) << created.error;
  repo.write("left-over.txt", "uncommitted\n");
  EXPECT_EQ(merge_sandbox_branch(repo.path(), created).error,
            "the working tree of " + repo.path() +
                " has uncommitted changes; commit them to sandbox branch 'dirty' first");
}

// The merge lock is around merges only: a sandbox commits while a merge holds it.
TEST(GitMergeLock, CommitDoesNotWaitForTheMergeLock) {
  TempRepo repo;
  UniqueFd lock(::open((repo.path() + "/.git/corral-merge.lock").c_str(),
                       O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  ASSERT_TRUE(lock.valid());
  ASSERT_EQ(::flock(lock.get(), LOCK_EX), 0);
  auto c = commit_changes(repo.path(), "HEAD", {}, "while-locked", "m");  // would block forever
  ASSERT_TRUE(c.ok()) << c.error().message;
}

// Three sandboxes on one repository commit to their own branches and merge at the same time:
// the lock serialises the merges, and every change lands.
TEST(GitMergeLock, ThreeSandboxesCommitAndMergeConcurrently) {
  TempRepo repo;
  TempDir upper;
  std::string base = repo.rev("HEAD");
  repo.write("user-wip.txt", "uncommitted\n");
  std::vector<GitSandboxResult> results(3);
  std::vector<std::string> commit_errors(3);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    upper.write("f" + std::to_string(i), "agent " + std::to_string(i) + "\n");
  }
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      std::string n = std::to_string(i);
      auto c = commit_changes(
          repo.path(), base,
          {GitChange{"agent" + n + ".txt", GitChange::Op::upsert, upper.path() + "/f" + n}},
          "agent-" + n, "agent " + n);
      if (!c) {
        commit_errors[i] = c.error().message;
        return;
      }
      results[i] = merge_branch(repo.path(), "agent-" + n);
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < 3; ++i) {
    std::string n = std::to_string(i);
    EXPECT_EQ(commit_errors[i], "");
    EXPECT_TRUE(results[i].success) << results[i].error;
    EXPECT_EQ(repo.read("agent" + n + ".txt"), "agent " + n + "\n");
    EXPECT_EQ(repo.git("merge-base --is-ancestor agent-" + n + " main && echo yes"), "yes\n");
  }
  EXPECT_EQ(repo.read("user-wip.txt"), "uncommitted\n");
  EXPECT_EQ(repo.status(), "?? user-wip.txt\n");
  EXPECT_EQ(repo.git("stash list"), "");
}

}  // namespace
}  // namespace corral::git
