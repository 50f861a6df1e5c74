// commit_changes: exact trees on the right parent, the user's state untouched, parallel
// sandboxes, and every bad input with its message.
#include "workspace/git_commit.hpp"

#include <git2.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thread>

#include "git_test_support.hpp"

namespace corral::git {
namespace {

using test::TempDir;
using test::TempRepo;
using Op = GitChange::Op;

GitChange upsert(const std::string& path, const std::string& source) {
  return GitChange{path, Op::upsert, source};
}
GitChange remove(const std::string& path) { return GitChange{path, Op::remove, ""}; }

// A repository whose base commit has files, a nested directory, an executable and a symlink.
class GitCommit : public ::testing::Test {
 protected:
  void SetUp() override {
    repo.write("a.txt", "a\n");
    repo.write("keep.txt", "keep\n");
    repo.write("dir/x.txt", "x\n");
    repo.write("dir/sub/y.txt", "y\n");
    repo.write("tool.sh", "#!/bin/sh\n");
    ::chmod((repo.path() + "/tool.sh").c_str(), 0755);
    repo.git("add -A");
    repo.git("commit -q -m files");
    base = repo.rev("HEAD");
  }
  std::string src(const std::string& name, const std::string& content, mode_t mode = 0644) {
    upper.write(name, content);
    ::chmod((upper.path() + "/" + name).c_str(), mode);
    return upper.path() + "/" + name;
  }
  // "MODE PATH" per entry of `git ls-tree -r`, the oids left out (content checked separately).
  std::string tree(const std::string& rev) {
    return repo.git("ls-tree -r --format='%(objectmode) %(path)' " + rev);
  }

  TempRepo repo;
  TempDir upper;  // stands for the sandbox's upper layer
  std::string base;
};

TEST_F(GitCommit, TreeHasTheChangesOnTheBaseParent) {
  std::string link = upper.path() + "/link";
  ASSERT_EQ(::symlink("dir/x.txt", link.c_str()), 0);
  std::vector<GitChange> changes = {
      upsert("a.txt", src("a.txt", "a edited\n")),
      upsert("new/deep/file.txt", src("file.txt", "new\n")),
      remove("dir"),  // a whole directory
      upsert("link", link),
      upsert("run.sh", src("run.sh", "#!/bin/sh\necho hi\n", 0755)),
      upsert("tool.sh", src("tool.sh", "#!/bin/sh\n", 0644)),  // exec bit dropped
  };
  auto commit = commit_changes(repo.path(), base, changes, "agent-1", "agent work");
  ASSERT_TRUE(commit.ok()) << commit.error().message;
  EXPECT_EQ(repo.rev("agent-1"), *commit);
  EXPECT_EQ(repo.rev("agent-1^"), base);
  EXPECT_EQ(test::trim(repo.git("rev-list --count agent-1")), "3");
  EXPECT_EQ(tree("agent-1"),
            "100644 README\n"
            "100644 a.txt\n"
            "100644 keep.txt\n"
            "120000 link\n"
            "100644 new/deep/file.txt\n"
            "100755 run.sh\n"
            "100644 tool.sh\n");
  EXPECT_EQ(repo.git("show agent-1:a.txt"), "a edited\n");
  EXPECT_EQ(repo.git("show agent-1:new/deep/file.txt"), "new\n");
  EXPECT_EQ(repo.git("show agent-1:link"), "dir/x.txt");
  EXPECT_EQ(repo.git("show agent-1:run.sh"), "#!/bin/sh\necho hi\n");
  EXPECT_EQ(repo.git("show agent-1:keep.txt"), "keep\n");
  EXPECT_EQ(repo.git("log -1 --format=%B agent-1"), "agent work\n\n");
  EXPECT_EQ(repo.git("log -1 --format='%an <%ae>' agent-1"), "Test User <test@example.com>\n");
}

TEST_F(GitCommit, UsersIndexWorktreeHeadAndStashAreUntouched) {
  repo.write("README", "user's unstaged edit\n");
  repo.write("keep.txt", "user's staged edit\n");
  repo.git("add keep.txt");
  repo.write("user-untracked.txt", "mine\n");
  repo.write("a.txt", "stashed\n");
  repo.git("stash push -q -- a.txt");
  std::string status = repo.status();
  std::string stash = repo.rev("stash@{0}");
  std::string index = repo.read(".git/index");
  std::string head_ref = repo.read(".git/HEAD");

  auto commit =
      commit_changes(repo.path(), base, {upsert("a.txt", src("a", "agent\n")), remove("keep.txt")},
                     "agent-1", "m");
  ASSERT_TRUE(commit.ok()) << commit.error().message;
  EXPECT_EQ(repo.status(), status);
  EXPECT_EQ(repo.read(".git/index"), index);
  EXPECT_EQ(repo.read(".git/HEAD"), head_ref);
  EXPECT_EQ(repo.rev("HEAD"), base);
  EXPECT_EQ(repo.rev("stash@{0}"), stash);
  EXPECT_EQ(test::trim(repo.git("stash list")).find('\n'), std::string::npos);
  EXPECT_EQ(repo.read("README"), "user's unstaged edit\n");
  EXPECT_EQ(repo.read("a.txt"), "a\n");
}

TEST_F(GitCommit, ParentIsTheRecordedBaseNotTheCurrentHead) {
  repo.commit_file("later.txt", "later\n", "user moved on");
  auto commit =
      commit_changes(repo.path(), base, {upsert("b.txt", src("b", "b\n"))}, "agent-1", "m");
  ASSERT_TRUE(commit.ok()) << commit.error().message;
  EXPECT_EQ(repo.rev("agent-1^"), base);
  EXPECT_EQ(repo.git("ls-tree --name-only agent-1"),
            "README\na.txt\nb.txt\ndir\nkeep.txt\ntool.sh\n");
}

TEST_F(GitCommit, ReplacementsBetweenFilesAndDirectories) {
  std::vector<GitChange> changes = {
      remove("a.txt"),
      upsert("a.txt/inner", src("inner", "inner\n")),  // file -> directory
      remove("dir"),
      upsert("dir", src("dirfile", "now a file\n")),  // directory -> file
      remove("does/not/exist"),                       // no-op
  };
  auto commit = commit_changes(repo.path(), base, changes, "agent-1", "m");
  ASSERT_TRUE(commit.ok()) << commit.error().message;
  EXPECT_EQ(tree("agent-1"),
            "100644 README\n100644 a.txt/inner\n100644 dir\n100644 keep.txt\n100755 tool.sh\n");
  EXPECT_EQ(repo.git("show agent-1:dir"), "now a file\n");
}

TEST_F(GitCommit, DirectorySourceAddsItsFiles) {
  upper.write("pkg/m.py", "m\n");
  upper.write("pkg/sub/n.py", "n\n");
  auto commit =
      commit_changes(repo.path(), base, {upsert("pkg", upper.path() + "/pkg")}, "agent-1", "m");
  ASSERT_TRUE(commit.ok()) << commit.error().message;
  EXPECT_EQ(repo.git("ls-tree -r --name-only agent-1 pkg"), "pkg/m.py\npkg/sub/n.py\n");
}

TEST_F(GitCommit, NoChangesStillCommitsTheBaseTree) {
  auto commit = commit_changes(repo.path(), base, {}, "agent-1", "");
  ASSERT_TRUE(commit.ok()) << commit.error().message;
  EXPECT_EQ(repo.rev("agent-1^{tree}"), repo.rev(base + "^{tree}"));
  EXPECT_EQ(repo.git("log -1 --format=%s agent-1"), "corral: sandbox changes\n");
}

TEST_F(GitCommit, ExplicitSignatureAndConfigFallback) {
  CommitOptions opts;
  opts.signature = {"Agent", "agent@corral"};
  ASSERT_TRUE(commit_changes(repo.path(), base, {}, "signed", "m", opts).ok());
  EXPECT_EQ(repo.git("log -1 --format='%an <%ae>|%cn <%ce>' signed"),
            "Agent <agent@corral>|Agent <agent@corral>\n");
}

TEST_F(GitCommit, WithoutConfiguredIdentityTheAuthorIsCorral) {
  repo.git("config --unset user.name");
  repo.git("config --unset user.email");
  TempDir empty;                                     // no global, XDG or system config either
  ASSERT_TRUE(is_git_repository(repo.path()).ok());  // libgit2 initialised before its options
  const git_config_level_t levels[] = {GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_XDG,
                                       GIT_CONFIG_LEVEL_GLOBAL, GIT_CONFIG_LEVEL_PROGRAMDATA};
  for (auto level : levels) git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, empty.path().c_str());
  auto commit = commit_changes(repo.path(), base, {}, "anon", "m");
  for (auto level : levels) git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, nullptr);  // defaults
  ASSERT_TRUE(commit.ok()) << commit.error().message;
  EXPECT_EQ(repo.git("log -1 --format='%an <%ae>' anon"), "corral <corral@localhost>\n");
}

TEST_F(GitCommit, ExistingBranchIsRefusedUnlessForced) {
  repo.git("branch agent-1");
  auto r = commit_changes(repo.path(), base, {}, "agent-1", "m");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "branch 'agent-1' already exists");
  EXPECT_EQ(r.error().code, Errc::invalid_input);

  CommitOptions force;
  force.force = true;
  auto forced =
      commit_changes(repo.path(), base, {upsert("f", src("f", "f\n"))}, "agent-1", "m", force);
  ASSERT_TRUE(forced.ok()) << forced.error().message;
  EXPECT_EQ(repo.rev("agent-1"), *forced);

  auto head = commit_changes(repo.path(), base, {}, "main", "m", force);
  ASSERT_FALSE(head.ok());
  EXPECT_EQ(head.error().message,
            "branch 'main' is checked out in " + repo.path() + "; corral will not move it");
  EXPECT_EQ(repo.rev("main"), base);
}

TEST_F(GitCommit, BadInputNamesWhatIsWrong) {
  TempDir plain;
  auto not_repo = commit_changes(plain.path(), base, {}, "b", "m");
  ASSERT_FALSE(not_repo.ok());
  EXPECT_EQ(not_repo.error().message, "not a git repository: " + plain.path());

  auto unknown = commit_changes(repo.path(), "nope", {}, "b", "m");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "unknown ref 'nope' in " + repo.path());
  EXPECT_EQ(unknown.error().code, Errc::not_found);

  for (std::string bad : {"bad..name", "", "-x", "a b", "HEAD"}) {
    auto r = commit_changes(repo.path(), base, {}, bad, "m");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message, "invalid branch name '" + bad + "'");
  }
  std::string s = src("s", "s");
  for (std::string path : {"../x", "/abs", "a//b", "./a", ".git/config", "sub/.GIT/x", ""}) {
    auto r = commit_changes(repo.path(), base, {upsert(path, s)}, "b", "m");
    ASSERT_FALSE(r.ok()) << path;
    EXPECT_EQ(r.error().message.rfind("invalid path in change: '" + path + "'", 0), 0u)
        << r.error().message;
  }
  auto missing =
      commit_changes(repo.path(), base, {upsert("m", upper.path() + "/missing")}, "b", "m");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message,
            "cannot read source '" + upper.path() + "/missing' of 'm': No such file or directory");
  std::string fifo = upper.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto special = commit_changes(repo.path(), base, {upsert("p", fifo)}, "b", "m");
  ASSERT_FALSE(special.ok());
  EXPECT_EQ(special.error().message,
            "source '" + fifo + "' of 'p' is not a regular file, symlink or directory");
  EXPECT_EQ(repo.git("branch --list b"), "");  // no failed attempt left a branch behind
}

TEST_F(GitCommit, ThreeSandboxesCommitInParallel) {
  std::vector<std::string> sources;
  for (int i = 0; i < 3; ++i)
    sources.push_back(src("f" + std::to_string(i), "agent " + std::to_string(i) + "\n"));
  std::vector<Result<std::string>> results(3, Result<std::string>(std::string()));
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      std::string n = std::to_string(i);
      results[i] =
          commit_changes(repo.path(), base,
                         {upsert("agent" + n + ".txt", sources[i]), upsert("a.txt", sources[i])},
                         "agent-" + n, "agent " + n);
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < 3; ++i) {
    std::string n = std::to_string(i);
    ASSERT_TRUE(results[i].ok()) << results[i].error().message;
    EXPECT_EQ(repo.rev("agent-" + n), *results[i]);
    EXPECT_EQ(repo.rev("agent-" + n + "^"), base);
    EXPECT_EQ(repo.git("show agent-" + n + ":agent" + n + ".txt"), "agent " + n + "\n");
    EXPECT_EQ(repo.git("show agent-" + n + ":a.txt"), "agent " + n + "\n");
    EXPECT_EQ(repo.git("ls-tree --name-only agent-" + n + " | grep -c '^agent'"), "1\n");
  }
  EXPECT_EQ(repo.git("fsck --no-progress --strict"), "");
}

}  // namespace
}  // namespace corral::git
