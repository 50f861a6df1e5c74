// `corral commit` and `corral merge` through the real binary (they exec corral-git): an agent
// edits a git repository through a copy-on-write workspace, its changes become a branch on the
// HEAD it started from, and the branch is merged back seed 003's way. Both lanes.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "integration/cli_support.hpp"
#include "workspace/tree.hpp"

namespace corral::test {
namespace {

class GitVerbsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo = dir.file("repo");
    layer = dir.file("layer");
    std::filesystem::create_directories(repo + "/src");
    std::filesystem::create_directories(dir.file("home"));
    git("init -q -b main");
    git("config user.name Tester");
    git("config user.email tester@example.com");
    write_file(repo + "/README", "hello\n");
    write_file(repo + "/src/main.c", "int main(void) { return 0; }\n");
    write_file(repo + "/old.txt", "old\n");
    git("add -A");
    git("commit -q -m initial");
    base = git("rev-parse HEAD");
  }
  void TearDown() override { (void)workspace::remove_tree(dir.path()); }

  // Runs /usr/bin/git in the repository; returns its stdout without the trailing newline.
  std::string git(const std::string& args) {
    std::string cmd = "cd '" + repo + "' && git " + args + " 2>&1";
    std::string out;
    FILE* p = ::popen(cmd.c_str(), "r");
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    int rc = ::pclose(p);
    EXPECT_EQ(rc, 0) << "git " << args << ": " << out;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }

  CliResult corral(const std::vector<std::string>& args) {
    CliOptions o;
    o.cwd = repo;
    o.env = std::map<std::string, std::string>{{"PATH", "/usr/local/bin:/usr/bin:/bin"},
                                               {"HOME", dir.file("home")},
                                               {"CORRAL_HOME", dir.file("state")}};
    return run_corral(args, o);
  }

  // The agent's session in a copy-on-write view of the repository, kept in `layer`.
  void agent(const std::string& script) {
    auto r = corral({"run", "--workspace", repo + ":cow", "--layer", layer, "--", "sh", "-c",
                     script});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  TempDir dir;
  std::string repo, layer, base;
};

TEST_F(GitVerbsTest, CommitMakesTheAgentsChangesOneCommitOnTheStartingHead) {
  agent("set -e; echo changed > README; rm old.txt; echo new > src/new.c; "
        "printf '#!/bin/sh\\n' > run.sh; chmod +x run.sh; ln -s README link");
  // The user moves on meanwhile: the commit's parent is still the HEAD the agent started from.
  write_file(repo + "/user.txt", "mine\n");
  git("add user.txt");
  git("commit -q -m user");
  std::string user_head = git("rev-parse HEAD");

  auto r = corral({"commit", "--layer", layer, "--branch", "agent-1", "-m", "agent work",
                   "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["branch"], "agent-1");
  EXPECT_EQ(j["parent"], base);
  EXPECT_EQ(git("rev-parse agent-1"), j["commit"].get<std::string>());
  EXPECT_EQ(git("rev-parse agent-1^"), base);
  EXPECT_EQ(git("log -1 --format=%s agent-1"), "agent work");
  EXPECT_EQ(git("ls-tree -r --format='%(objectmode) %(path)' agent-1"),
            "100644 README\n120000 link\n100755 run.sh\n100644 src/main.c\n100644 src/new.c");
  EXPECT_EQ(git("show agent-1:README"), "changed");
  EXPECT_EQ(git("show agent-1:link"), "README");
  // The user's branch, HEAD, index and working tree are untouched.
  EXPECT_EQ(git("rev-parse HEAD"), user_head);
  EXPECT_EQ(git("symbolic-ref --short HEAD"), "main");
  EXPECT_EQ(git("status --porcelain"), "");
  EXPECT_EQ(read_file(repo + "/README"), "hello\n");
  EXPECT_TRUE(path_exists(repo + "/old.txt"));

  // The same branch again is refused, naming it.
  auto again = corral({"commit", "--layer", layer, "--branch", "agent-1"});
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_NE(again.err.find("branch 'agent-1' already exists"), std::string::npos) << again.err;
}

TEST_F(GitVerbsTest, MergeCleanOnADirtyTreeGivesTheUsersWorkBack) {
  agent("echo agent > agent.txt");
  ASSERT_EQ(corral({"commit", "--layer", layer, "--branch", "agent"}).exit_code, 0);
  write_file(repo + "/README", "hello\nuser edit in progress\n");
  write_file(repo + "/scratch.txt", "untracked\n");

  auto r = corral({"merge", "--layer", layer, "--branch", "agent", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["success"], true);
  EXPECT_EQ(j["outcome"], "fast_forward");
  EXPECT_EQ(j["stash_restored"], true);
  EXPECT_EQ(read_file(repo + "/agent.txt"), "agent\n");
  EXPECT_EQ(read_file(repo + "/README"), "hello\nuser edit in progress\n");
  EXPECT_EQ(read_file(repo + "/scratch.txt"), "untracked\n");
  EXPECT_EQ(git("rev-parse HEAD"), git("rev-parse agent"));
}

TEST_F(GitVerbsTest, MergeConflictsAreListedAndAbortReturnsToTheStart) {
  agent("echo agent version > README");
  ASSERT_EQ(corral({"commit", "--layer", layer, "--branch", "agent"}).exit_code, 0);
  write_file(repo + "/README", "user version\n");
  git("commit -q -am user");
  std::string before = git("rev-parse HEAD");
  write_file(repo + "/notes.txt", "uncommitted\n");

  auto r = corral({"merge", "--layer", layer, "--branch", "agent"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("conflicts in:\n  README\n"), std::string::npos) << r.out;
  EXPECT_NE(read_file(repo + "/README").find("<<<<<<<"), std::string::npos);
  EXPECT_FALSE(path_exists(repo + "/notes.txt"));  // safely stashed while the user resolves

  auto abort = corral({"merge", "--abort"});  // from inside the repository
  ASSERT_EQ(abort.exit_code, 0) << abort.err;
  EXPECT_EQ(git("rev-parse HEAD"), before);
  EXPECT_EQ(read_file(repo + "/README"), "user version\n");
  EXPECT_EQ(read_file(repo + "/notes.txt"), "uncommitted\n");

  auto again = corral({"merge", "--abort"});
  EXPECT_EQ(again.exit_code, 2);  // nothing to abort: an input error
  EXPECT_NE(again.err.find("no corral merge in progress"), std::string::npos) << again.err;
}

TEST_F(GitVerbsTest, BadInputIsNamed) {
  // A workspace that is not a repository has nothing to commit onto.
  std::string plain = dir.file("plain");
  std::filesystem::create_directories(plain);
  std::string plain_layer = dir.file("plain-layer");
  CliOptions o;
  o.cwd = plain;
  o.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"},
                                             {"HOME", dir.file("home")},
                                             {"CORRAL_HOME", dir.file("state")}};
  ASSERT_EQ(run_corral({"run", "--workspace", plain + ":cow", "--layer", plain_layer, "--", "sh",
                        "-c", "echo x > f"},
                       o)
                .exit_code,
            0);
  auto r = run_corral({"commit", "--layer", plain_layer, "--branch", "b"}, o);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("was not a git repository"), std::string::npos) << r.err;

  agent("echo x > y");
  auto bad_branch = corral({"commit", "--layer", layer, "--branch", "no..dots"});
  EXPECT_EQ(bad_branch.exit_code, 2);
  EXPECT_NE(bad_branch.err.find("invalid branch name"), std::string::npos) << bad_branch.err;
  auto no_branch = corral({"commit", "--layer", layer});
  EXPECT_EQ(no_branch.exit_code, 2);
  EXPECT_NE(no_branch.err.find("--branch"), std::string::npos) << no_branch.err;
  auto unknown = corral({"merge", "--layer", layer, "--branch", "nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown ref 'nope'"), std::string::npos) << unknown.err;
  auto no_sandbox = corral({"commit", "ghost", "--branch", "b"});
  EXPECT_EQ(no_sandbox.exit_code, 2);
  EXPECT_NE(no_sandbox.err.find("no sandbox named \"ghost\""), std::string::npos)
      << no_sandbox.err;
}

}  // namespace
}  // namespace corral::test
