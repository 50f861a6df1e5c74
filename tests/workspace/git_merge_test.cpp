// merge_branch / merge_abort on real repositories: fast-forward, merge commit, conflicts,
// dirty trees, abort, and bad input.
#include "workspace/git_merge.hpp"

#include <gtest/gtest.h>

#include "git_test_support.hpp"
#include "workspace/git_commit.hpp"

namespace corral::git {
namespace {

using test::TempDir;
using test::TempRepo;

class GitMerge : public ::testing::Test {
 protected:
  void SetUp() override {
    repo.commit_file("shared.txt", "line 1\nline 2\nline 3\n", "shared");
    base = repo.rev("HEAD");
  }
  // What a sandbox would do: commit a change to `branch` with `base` as parent.
  void sandbox_commit(const std::string& branch, const std::string& path,
                      const std::string& content) {
    upper.write(branch + "-src", content);
    auto c = commit_changes(
        repo.path(), base,
        {GitChange{path, GitChange::Op::upsert, upper.path() + "/" + branch + "-src"}}, branch,
        "sandbox " + branch);
    ASSERT_TRUE(c.ok()) << c.error().message;
  }
  bool merge_head_exists() { return repo.exists(".git/MERGE_HEAD"); }

  TempRepo repo;
  TempDir upper;
  std::string base;
};

TEST_F(GitMerge, FastForward) {
  sandbox_commit("agent-1", "new.txt", "new\n");
  auto r = merge_branch(repo.path(), "agent-1");
  ASSERT_TRUE(r.success) << r.error;
  EXPECT_EQ(r.outcome, MergeOutcome::fast_forward);
  EXPECT_EQ(r.into, "main");
  EXPECT_EQ(r.original_branch, "main");
  EXPECT_EQ(r.stash_id, "");
  EXPECT_EQ(repo.rev("main"), repo.rev("agent-1"));
  EXPECT_EQ(r.merged_commit, repo.rev("main"));
  EXPECT_EQ(repo.read("new.txt"), "new\n");
  EXPECT_EQ(repo.status(), "");
  EXPECT_FALSE(merge_in_progress(repo.path()).value());
  EXPECT_FALSE(repo.exists(".git/corral-merge.json"));
}

TEST_F(GitMerge, NoFastForwardMakesAMergeCommit) {
  sandbox_commit("agent-1", "new.txt", "new\n");
  MergeOptions opts;
  opts.fast_forward = false;
  auto r = merge_branch(repo.path(), "agent-1", "", opts);
  ASSERT_TRUE(r.success) << r.error;
  EXPECT_EQ(r.outcome, MergeOutcome::merge_commit);
  EXPECT_EQ(repo.rev("main^1"), base);
  EXPECT_EQ(repo.rev("main^2"), repo.rev("agent-1"));
  EXPECT_EQ(repo.git("log -1 --format=%s main"), "Merge branch 'agent-1' into main\n");
  EXPECT_EQ(repo.status(), "");
}

TEST_F(GitMerge, DivergedBranchesGetAMergeCommitWithBothSides) {
  sandbox_commit("agent-1", "new.txt", "new\n");
  repo.commit_file("user.txt", "user\n", "user work");
  std::string user_head = repo.rev("HEAD");
  MergeOptions opts;
  opts.message = "take the agent's work";
  auto r = merge_branch(repo.path(), "agent-1", "main", opts);
  ASSERT_TRUE(r.success) << r.error;
  EXPECT_EQ(r.outcome, MergeOutcome::merge_commit);
  EXPECT_EQ(r.merged_commit, repo.rev("main"));
  EXPECT_EQ(repo.rev("main^1"), user_head);
  EXPECT_EQ(repo.rev("main^2"), repo.rev("agent-1"));
  EXPECT_EQ(repo.read("new.txt"), "new\n");
  EXPECT_EQ(repo.read("user.txt"), "user\n");
  EXPECT_EQ(repo.git("log -1 --format=%s"), "take the agent's work\n");
  EXPECT_EQ(repo.status(), "");
  EXPECT_FALSE(merge_head_exists());
}

TEST_F(GitMerge, RepositoryConfigMergeFfFalseIsHonoured) {
  sandbox_commit("agent-1", "new.txt", "new\n");
  repo.git("config merge.ff false");
  auto r = merge_branch(repo.path(), "agent-1");
  ASSERT_TRUE(r.success) << r.error;
  EXPECT_EQ(r.outcome, MergeOutcome::merge_commit);
  EXPECT_EQ(repo.rev("main^2"), repo.rev("agent-1"));
}

TEST_F(GitMerge, RefusesABranchCheckedOutInAnotherWorktree) {
  sandbox_commit("agent-1", "new.txt", "new\n");
  TempDir other;
  repo.git("checkout -q -b feature");
  repo.git("worktree add -q " + test::quote(other.path() + "/wt") + " main");
  auto r = merge_branch(repo.path(), "agent-1", "main");
  EXPECT_FALSE(r.success);
  EXPECT_EQ(r.error, "branch 'main' is checked out in another worktree; merge there");
  EXPECT_EQ(repo.rev("main"), base);
  // From that worktree it works, and the merge lock is the repository's, shared by both.
  auto there = merge_branch(other.path() + "/wt", "agent-1");
  ASSERT_TRUE(there.success) << there.error;
  EXPECT_EQ(repo.rev("main"), repo.rev("agent-1"));
  EXPECT_EQ(test::trim(repo.git("symbolic-ref --short HEAD")), "feature");
}

TEST_F(GitMerge, AlreadyUpToDate) {
  repo.git("branch same");
  auto r = merge_branch(repo.path(), "same");
  ASSERT_TRUE(r.success) << r.error;
  EXPECT_EQ(r.outcome, MergeOutcome::up_to_date);
  EXPECT_EQ(repo.rev("main"), base);
}

TEST_F(GitMerge, ConflictsAreListedAndLeftForTheUser) {
  sandbox_commit("agent-1", "shared.txt", "line 1\nagent\nline 3\n");
  upper.write("other-src", "agent other\n");
  repo.write("shared.txt", "line 1\nuser\nline 3\n");
  repo.write("other.txt", "user other\n");
  repo.git("add -A");
  repo.git("commit -q -m user");
  // A second conflicting file on the agent's branch.
  ASSERT_TRUE(
      commit_changes(repo.path(), "agent-1",
                     {GitChange{"other.txt", GitChange::Op::upsert, upper.path() + "/other-src"}},
                     "agent-2", "more")
          .ok());
  std::string user_head = repo.rev("HEAD");

  auto r = merge_branch(repo.path(), "agent-2");
  EXPECT_FALSE(r.success);
  EXPECT_TRUE(r.has_conflicts);
  EXPECT_EQ(r.outcome, MergeOutcome::conflicts);
  EXPECT_EQ(r.conflicted_files, (std::vector<std::string>{"other.txt", "shared.txt"}));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(repo.rev("HEAD"), user_head);
  EXPECT_TRUE(merge_head_exists());
  EXPECT_NE(repo.read("shared.txt").find("<<<<<<<"), std::string::npos);
  EXPECT_EQ(repo.git("diff --name-only --diff-filter=U"), "other.txt\nshared.txt\n");
  EXPECT_TRUE(merge_in_progress(repo.path()).value());

  auto again = merge_branch(repo.path(), "agent-1");
  EXPECT_FALSE(again.success);
  EXPECT_EQ(again.error, "a corral merge of 'agent-2' into 'main' is in progress in " +
                             repo.path() +
                             ": resolve the conflicts and commit, or run `corral merge --abort`");

  ASSERT_TRUE(merge_abort(repo.path()).ok());
  EXPECT_EQ(repo.rev("HEAD"), user_head);
  EXPECT_EQ(repo.read("shared.txt"), "line 1\nuser\nline 3\n");
  EXPECT_FALSE(merge_head_exists());
  EXPECT_EQ(repo.status(), "");
  EXPECT_FALSE(merge_in_progress(repo.path()).value());
}

TEST_F(GitMerge, DirtyTreeIsStashedAndRestoredAfterSuccess) {
  sandbox_commit("agent-1", "new.txt", "new\n");
  repo.write("README", "user's uncommitted edit\n");
  repo.write("notes/untracked.txt", "user's untracked file\n");
  repo.write("staged.txt", "staged\n");
  repo.git("add staged.txt");
  std::string status = repo.status();

  auto r = merge_branch(repo.path(), "agent-1");
  ASSERT_TRUE(r.success) << r.error;
  EXPECT_NE(r.stash_id, "");
  EXPECT_TRUE(r.stash_restored);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(repo.rev("main"), repo.rev("agent-1"));
  EXPECT_EQ(repo.read("README"), "user's uncommitted edit\n");
  EXPECT_EQ(repo.read("notes/untracked.txt"), "user's untracked file\n");
  EXPECT_EQ(repo.read("new.txt"), "new\n");
  EXPECT_EQ(repo.status(), status);
  EXPECT_EQ(repo.git("stash list"), "");
}

TEST_F(GitMerge, WorkThatConflictsWithTheMergedChangesIsKeptInTheStash) {
  sandbox_commit("agent-1", "shared.txt", "line 1\nagent\nline 3\n");
  repo.write("shared.txt", "line 1\nuser's uncommitted\nline 3\n");
  auto r = merge_branch(repo.path(), "agent-1");
  ASSERT_TRUE(r.success) << r.error;  // the merge itself is done ...
  EXPECT_EQ(repo.rev("main"), repo.rev("agent-1"));
  EXPECT_FALSE(r.stash_restored);  // ... but the user's work could not go back on top of it
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("stash " + r.stash_id + " conflicts with the working tree of " +
                               repo.path() + " in shared.txt; it is kept"),
            std::string::npos)
      << r.warnings[0];
  EXPECT_EQ(repo.rev("stash@{0}"), r.stash_id);
  EXPECT_EQ(repo.git("show stash@{0}:shared.txt"), "line 1\nuser's uncommitted\nline 3\n");
  EXPECT_EQ(repo.read("shared.txt"), "line 1\nagent\nline 3\n");
  EXPECT_EQ(repo.status(), "");
  EXPECT_FALSE(merge_in_progress(repo.path()).value());
}

TEST_F(GitMerge, DirtyTreeStaysStashedOnConflictAndAbortRestoresIt) {
  sandbox_commit("agent-1", "shared.txt", "line 1\nagent\nline 3\n");
  repo.commit_file("shared.txt", "line 1\nuser\nline 3\n", "user");
  std::string user_head = repo.rev("HEAD");
  repo.write("README", "user's uncommitted edit\n");
  repo.write("untracked.txt", "user's untracked file\n");

  auto r = merge_branch(repo.path(), "agent-1");
  ASSERT_TRUE(r.has_conflicts) << r.error;
  EXPECT_EQ(r.conflicted_files, std::vector<std::string>{"shared.txt"});
  ASSERT_NE(r.stash_id, "");
  EXPECT_FALSE(r.stash_restored);
  EXPECT_EQ(repo.rev("stash@{0}"), r.stash_id);  // the user's work is safe in the stash
  EXPECT_EQ(repo.read("README"), "hello\n");
  EXPECT_FALSE(repo.exists("untracked.txt"));
  EXPECT_EQ(repo.git("show stash@{0}:README"), "user's uncommitted edit\n");
  EXPECT_EQ(repo.git("show stash@{0}^3:untracked.txt"), "user's untracked file\n");

  ASSERT_TRUE(merge_abort(repo.path()).ok());
  EXPECT_EQ(repo.rev("HEAD"), user_head);
  EXPECT_EQ(repo.read("README"), "user's uncommitted edit\n");
  EXPECT_EQ(repo.read("untracked.txt"), "user's untracked file\n");
  EXPECT_EQ(repo.read("shared.txt"), "line 1\nuser\nline 3\n");
  EXPECT_EQ(repo.git("stash list"), "");
  EXPECT_EQ(repo.status(), " M README\n?? untracked.txt\n");
}

TEST_F(GitMerge, IntoAnotherBranchReturnsToTheOriginalOne) {
  sandbox_commit("agent-1", "new.txt", "new\n");
  repo.git("checkout -q -b feature");
  repo.commit_file("feature.txt", "feature\n", "feature work");
  std::string feature = repo.rev("HEAD");
  repo.write("feature.txt", "dirty\n");

  auto r = merge_branch(repo.path(), "agent-1", "main");
  ASSERT_TRUE(r.success) << r.error;
  EXPECT_EQ(r.into, "main");
  EXPECT_EQ(r.original_branch, "feature");
  EXPECT_EQ(repo.rev("main"), repo.rev("agent-1"));
  EXPECT_EQ(test::trim(repo.git("symbolic-ref --short HEAD")), "feature");
  EXPECT_EQ(repo.rev("HEAD"), feature);
  EXPECT_EQ(repo.read("feature.txt"), "dirty\n");
  EXPECT_FALSE(repo.exists("new.txt"));
  EXPECT_TRUE(r.stash_restored);
}

TEST_F(GitMerge, AbortAfterConflictIntoAnotherBranchReturnsToTheOriginalOne) {
  sandbox_commit("agent-1", "shared.txt", "agent\n");
  repo.commit_file("shared.txt", "user\n", "user");
  std::string main_head = repo.rev("main");
  repo.git("checkout -q -b feature");
  repo.write("wip.txt", "wip\n");

  auto r = merge_branch(repo.path(), "agent-1", "main");
  ASSERT_TRUE(r.has_conflicts) << r.error;
  EXPECT_EQ(test::trim(repo.git("symbolic-ref --short HEAD")), "main");
  ASSERT_TRUE(merge_abort(repo.path()).ok());
  EXPECT_EQ(test::trim(repo.git("symbolic-ref --short HEAD")), "feature");
  EXPECT_EQ(repo.rev("main"), main_head);
  EXPECT_EQ(repo.read("wip.txt"), "wip\n");
  EXPECT_EQ(repo.git("stash list"), "");
}

TEST_F(GitMerge, ResolvedWithGitThenAbortForgetsAndNamesTheStash) {
  sandbox_commit("agent-1", "shared.txt", "agent\n");
  repo.commit_file("shared.txt", "user\n", "user");
  repo.write("README", "wip\n");
  auto r = merge_branch(repo.path(), "agent-1");
  ASSERT_TRUE(r.has_conflicts);
  repo.write("shared.txt", "resolved\n");
  repo.git("add shared.txt");
  repo.git("commit -q --no-edit");
  std::string resolved = repo.rev("HEAD");

  auto abort = merge_abort(repo.path());
  ASSERT_FALSE(abort.ok());
  EXPECT_NE(abort.error().message.find("was concluded outside corral"), std::string::npos)
      << abort.error().message;
  EXPECT_NE(abort.error().message.find("stash " + r.stash_id), std::string::npos);
  EXPECT_EQ(repo.rev("HEAD"), resolved);  // the user's resolution is kept
  EXPECT_FALSE(merge_in_progress(repo.path()).value());
  EXPECT_EQ(repo.rev("stash@{0}"), r.stash_id);
}

TEST_F(GitMerge, ResolvedWithGitThenNextMergeProceedsWithAWarning) {
  sandbox_commit("agent-1", "shared.txt", "agent\n");
  repo.commit_file("shared.txt", "user\n", "user");
  repo.write("README", "wip\n");
  auto r = merge_branch(repo.path(), "agent-1");
  ASSERT_TRUE(r.has_conflicts);
  repo.write("shared.txt", "resolved\n");
  repo.git("add shared.txt");
  repo.git("commit -q --no-edit");
  sandbox_commit("agent-2", "two.txt", "two\n");

  auto next = merge_branch(repo.path(), "agent-2");
  ASSERT_TRUE(next.success) << next.error;
  ASSERT_EQ(next.warnings.size(), 1u);
  EXPECT_NE(next.warnings[0].find(r.stash_id), std::string::npos) << next.warnings[0];
  EXPECT_EQ(repo.read("two.txt"), "two\n");
}

TEST_F(GitMerge, GitMergeAbortThenCorralAbortStillRestoresTheUsersWork) {
  sandbox_commit("agent-1", "shared.txt", "agent\n");
  repo.commit_file("shared.txt", "user\n", "user");
  std::string user_head = repo.rev("HEAD");
  repo.write("README", "wip\n");
  auto r = merge_branch(repo.path(), "agent-1");
  ASSERT_TRUE(r.has_conflicts);
  repo.git("merge --abort");  // the user backs out with git first
  ASSERT_TRUE(merge_abort(repo.path()).ok());
  EXPECT_EQ(repo.rev("HEAD"), user_head);
  EXPECT_EQ(repo.read("README"), "wip\n");
  EXPECT_EQ(repo.git("stash list"), "");
  EXPECT_FALSE(merge_in_progress(repo.path()).value());
}

TEST_F(GitMerge, AbortWithoutMergeIsAnError) {
  auto r = merge_abort(repo.path());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "no corral merge in progress in " + repo.path());
  EXPECT_EQ(r.error().code, Errc::not_found);
}

TEST_F(GitMerge, BadInputNamesWhatIsWrong) {
  TempDir plain;
  auto not_repo = merge_branch(plain.path(), "agent-1");
  EXPECT_FALSE(not_repo.success);
  EXPECT_EQ(not_repo.error, "not a git repository: " + plain.path());
  EXPECT_EQ(not_repo.error_code, Errc::invalid_input);
  auto abort = merge_abort(plain.path());
  ASSERT_FALSE(abort.ok());
  EXPECT_EQ(abort.error().message, "not a git repository: " + plain.path());

  auto unknown = merge_branch(repo.path(), "nope");
  EXPECT_FALSE(unknown.success);
  EXPECT_EQ(unknown.error, "unknown ref 'nope' in " + repo.path());
  EXPECT_EQ(unknown.error_code, Errc::not_found);

  sandbox_commit("agent-1", "new.txt", "new\n");
  auto into = merge_branch(repo.path(), "agent-1", "nope");
  EXPECT_EQ(into.error, "unknown ref 'nope' in " + repo.path());
  repo.git("tag v1");
  auto tag = merge_branch(repo.path(), "agent-1", "v1");
  EXPECT_EQ(tag.error, "cannot merge into 'v1': not a local branch");
  auto empty = merge_branch(repo.path(), "");
  EXPECT_EQ(empty.error, "no branch to merge was named");

  repo.git("checkout -q --detach");
  auto detached = merge_branch(repo.path(), "agent-1");
  EXPECT_EQ(detached.error,
            "HEAD is detached in " + repo.path() + "; name the branch to merge into");
  EXPECT_EQ(repo.rev("main"), base);  // nothing merged by any of these
  EXPECT_EQ(repo.status(), "");
}

TEST_F(GitMerge, RefusesWhileAGitMergeIsInProgress) {
  repo.git("checkout -q -b side");
  repo.commit_file("shared.txt", "side\n", "side");
  repo.git("checkout -q main");
  repo.commit_file("shared.txt", "main\n", "main");
  repo.git("merge side", /*allow_fail=*/true);
  ASSERT_TRUE(merge_head_exists());
  auto r = merge_branch(repo.path(), "side");
  EXPECT_EQ(r.error, "a git operation (merge, rebase, cherry-pick, ...) is in progress in " +
                         repo.path() + "; finish or abort it first");
}

TEST(GitMergeJson, ConflictResultRendering) {
  GitSandboxResult r;
  r.branch = "agent-1";
  r.original_branch = "main";
  r.into = "main";
  r.stash_id = "abc";
  r.has_conflicts = true;
  r.conflicted_files = {"a.txt", "b/c.txt"};
  r.outcome = MergeOutcome::conflicts;
  EXPECT_EQ(to_json(r).dump(),
            R"({"success":false,"branch":"agent-1","original_branch":"main","into":"main",)"
            R"("stash_id":"abc","stash_restored":false,"has_conflicts":true,)"
            R"("conflicted_files":["a.txt","b/c.txt"],"outcome":"conflicts","merged_commit":null,)"
            R"("error":null,"error_code":null,"warnings":[]})");
  auto f = GitSandboxResult::failure(make_error(Errc::not_found, "unknown ref 'nope'"));
  auto j = to_json(f);
  EXPECT_EQ(j["error"], "unknown ref 'nope'");
  EXPECT_EQ(j["error_code"], "not_found");
  EXPECT_EQ(j["success"], false);
}

}  // namespace
}  // namespace corral::git
