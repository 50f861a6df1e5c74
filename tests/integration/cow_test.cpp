// Copy-on-write workspaces through the real binary: `corral run --workspace P:cow`, then the
// diff, checkpoint, rollback, checkpoints, fork and apply verbs on the layer it kept. Runs in
// both lanes (overlayfs inside the sandbox's user namespace needs no privilege).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "integration/cli_support.hpp"
#include "workspace/tree.hpp"

namespace corral::test {
namespace {

// A workspace tree and a state directory (CORRAL_HOME) under /tmp. Layers hold overlayfs'
// mode-000 work dirs, which workspace::remove_tree can remove as an ordinary user.
class CowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ws = dir.file("ws");
    home = dir.file("home");
    std::filesystem::create_directories(ws + "/dir/sub");
    std::filesystem::create_directories(ws + "/keepdir");
    std::filesystem::create_directories(home);
    write_file(ws + "/edit.txt", "line 1\nline 2\n");
    write_file(ws + "/gone.txt", "bye\n");
    write_file(ws + "/old-name", "renamed content\n");
    write_file(ws + "/script.sh", "#!/bin/sh\necho hi\n");
    write_file(ws + "/dir/a", "a\n");
    write_file(ws + "/dir/sub/b", "b\n");
    write_file(ws + "/keepdir/k", "k\n");
    ASSERT_EQ(symlink("edit.txt", (ws + "/link").c_str()), 0);
  }
  void TearDown() override { (void)workspace::remove_tree(dir.path()); }

  CliResult corral(const std::vector<std::string>& args) {
    CliOptions o;
    o.cwd = ws;
    o.env = std::map<std::string, std::string>{
        {"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", dir.path()}, {"CORRAL_HOME", home}};
    return run_corral(args, o);
  }

  // The agent's session: every kind of change.
  static constexpr const char* kAgent =
      "set -e; echo added > new.txt; printf 'line 1\\nchanged\\n' > edit.txt; rm gone.txt; "
      "mv old-name new-name; ln -s new.txt new-link; ln -sfn dir/a link; chmod 755 script.sh; "
      "rm -r dir; mkdir -p fresh/deep; echo d > fresh/deep/f; cat edit.txt new.txt";

  TempDir dir;
  std::string ws, home;
};

// Every entry below `root`: type, mode, content or link target. Equal snapshots, equal trees.
std::string snapshot(const std::string& root) {
  std::vector<std::string> lines;
  for (auto it = std::filesystem::recursive_directory_iterator(root); it != std::filesystem::end(it); ++it) {
    struct stat st;
    const std::string p = it->path().string();
    if (lstat(p.c_str(), &st) != 0) continue;
    std::string line = p.substr(root.size()) + " " + std::to_string(st.st_mode);
    if (S_ISREG(st.st_mode)) line += " " + read_file(p);
    if (S_ISLNK(st.st_mode)) line += " -> " + std::filesystem::read_symlink(p).string();
    lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::set<std::string> kinds_of(const nlohmann::json& changes) {
  std::set<std::string> out;
  for (const auto& c : changes)
    out.insert(c["kind"].get<std::string>() + " " + c["type"].get<std::string>() + " " +
               c["path"].get<std::string>());
  return out;
}

const std::set<std::string> kExpected = {
    "added dir fresh", "added dir fresh/deep", "added file fresh/deep/f", "added file new-name",
    "added file new.txt", "added symlink new-link", "deleted dir dir", "deleted file gone.txt",
    "deleted file old-name", "modified file edit.txt", "modified file script.sh",
    "modified symlink link"};

TEST_F(CowTest, HostTreeUntouchedAndTheRecordListsExactlyTheWrites) {
  const std::string before = snapshot(ws);
  auto r = corral({"run", "--workspace", ws + ":cow", "--record", dir.file("rec.json"), "--", "sh", "-c", kAgent});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "line 1\nchanged\nadded\n");  // the sandbox saw its own writes
  EXPECT_EQ(snapshot(ws), before);                 // the host did not

  auto rec = nlohmann::json::parse(read_file(dir.file("rec.json")));
  std::set<std::string> writes;
  for (const auto& w : rec["writes"]) writes.insert(w.get<std::string>());
  std::set<std::string> expected_writes;
  for (const auto& e : kExpected) expected_writes.insert(ws + "/" + e.substr(e.rfind(' ') + 1));
  EXPECT_EQ(writes, expected_writes);
  EXPECT_EQ(rec["writes_exact"], true);
  ASSERT_TRUE(rec["workspace"].is_object());
  EXPECT_EQ(rec["workspace"]["mode"], "cow");
  EXPECT_EQ(rec["workspace"]["kept"], true);
  EXPECT_EQ(kinds_of(rec["workspace"]["changes"]), kExpected);
  const std::string layer = rec["workspace"]["layer"];
  EXPECT_EQ(layer.rfind(home + "/runs/", 0), 0u) << layer;
  EXPECT_NE(r.err.find("kept in " + layer), std::string::npos) << r.err;

  // corral diff --json reads the same from the layer; details of the edits are exact.
  auto d = corral({"diff", "--layer", layer, "--json"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  auto j = nlohmann::json::parse(d.out);
  EXPECT_EQ(kinds_of(j["changes"]), kExpected);
  for (const auto& c : j["changes"]) {
    if (c["path"] == "script.sh") {
      EXPECT_EQ(c["mode_from"], "0644");
      EXPECT_EQ(c["mode"], "0755");
      EXPECT_EQ(c["content_changed"], false);
    }
    if (c["path"] == "link") {
      EXPECT_EQ(c["target_from"], "edit.txt");
      EXPECT_EQ(c["target"], "dir/a");
    }
    if (c["path"] == "new.txt") {
      EXPECT_EQ(c["size"], 6);
    }
  }
  auto patch = corral({"diff", "--layer", layer, "--patch"});
  ASSERT_EQ(patch.exit_code, 0) << patch.err;
  EXPECT_NE(patch.out.find("--- a/edit.txt\n+++ b/edit.txt\n@@ -1,2 +1,2 @@\n line 1\n-line 2\n+changed\n"),
            std::string::npos) << patch.out;
  auto stat = corral({"diff", "--layer", layer, "--stat"});
  EXPECT_NE(stat.out.find("6 added, 3 modified, 3 deleted"), std::string::npos) << stat.out;
}

TEST_F(CowTest, APlainWritableWorkspaceSaysItsWritesAreNotExact) {
  auto r = corral({"run", "--workspace", ws, "--record", dir.file("rec.json"), "--", "touch", "x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rec = nlohmann::json::parse(read_file(dir.file("rec.json")));
  EXPECT_EQ(rec["writes_exact"], false);
  EXPECT_FALSE(rec.contains("workspace"));
  bool said = false;
  for (const auto& n : rec["not_observed"]) said = said || n.get<std::string>().rfind("writes:", 0) == 0;
  EXPECT_TRUE(said) << rec.dump();
}

TEST_F(CowTest, NoWritesLeaveNoLayer) {
  auto r = corral({"run", "--workspace", ws + ":cow", "--record", dir.file("rec.json"), "--", "cat", "edit.txt"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rec = nlohmann::json::parse(read_file(dir.file("rec.json")));
  EXPECT_TRUE(rec["writes"].empty());
  EXPECT_EQ(rec["workspace"]["kept"], false);
  EXPECT_FALSE(path_exists(home + "/runs/" + rec["id"].get<std::string>()));
}

TEST_F(CowTest, CheckpointRollbackRoundTripAndFork) {
  const std::string layer = dir.file("layer");
  ASSERT_EQ(corral({"run", "--workspace", ws + ":cow", "--layer", layer, "--", "sh", "-c",
                    "echo one > state; rm gone.txt"}).exit_code, 0);
  auto cp = corral({"checkpoint", "--layer", layer, "first"});
  ASSERT_EQ(cp.exit_code, 0) << cp.err;
  const std::string at_first = corral({"diff", "--layer", layer}).out;
  EXPECT_EQ(at_first, "D  gone.txt\nA  state\n");

  // A second session in the same layer: overwrite, restore the deleted file, delete a dir.
  auto second = corral({"run", "--workspace", ws + ":cow", "--layer", layer, "--", "sh", "-c",
                        "cat state; echo two > state; echo back > gone.txt; rm -r keepdir"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out, "one\n");
  EXPECT_EQ(corral({"diff", "--layer", layer}).out, "M  gone.txt\nD  keepdir/\nA  state\n");

  auto fork = corral({"fork", "--layer", layer, dir.file("fork")});
  ASSERT_EQ(fork.exit_code, 0) << fork.err;

  auto rb = corral({"rollback", "--layer", layer, "first"});
  ASSERT_EQ(rb.exit_code, 0) << rb.err;
  EXPECT_EQ(corral({"diff", "--layer", layer}).out, at_first);
  auto third = corral({"run", "--workspace", ws + ":cow", "--layer", layer, "--", "sh", "-c",
                       "cat state; test ! -e gone.txt && test -d keepdir && echo exact"});
  EXPECT_EQ(third.out, "one\nexact\n") << third.err;

  // The fork kept the second session's state and diverges on its own.
  auto in_fork = corral({"run", "--workspace", ws + ":cow", "--layer", dir.file("fork"), "--", "sh", "-c",
                         "cat state; echo fork > only-in-fork"});
  EXPECT_EQ(in_fork.out, "two\n") << in_fork.err;
  EXPECT_EQ(corral({"diff", "--layer", dir.file("fork")}).out,
            "M  gone.txt\nD  keepdir/\nA  only-in-fork\nA  state\n");
  EXPECT_EQ(corral({"diff", "--layer", layer}).out, at_first);

  auto list = corral({"checkpoints", "--layer", layer, "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  auto arr = nlohmann::json::parse(list.out);
  ASSERT_EQ(arr.size(), 1u);
  EXPECT_EQ(arr[0]["tag"], "first");
}

TEST_F(CowTest, RollbackRefusesWhileTheSandboxRuns) {
  const std::string layer = dir.file("layer");
  ASSERT_EQ(corral({"run", "--workspace", ws + ":cow", "--layer", layer, "--", "touch", "x"}).exit_code, 0);
  ASSERT_EQ(corral({"checkpoint", "--layer", layer, "cp"}).exit_code, 0);
  // The sandbox itself asks for the rollback of its own, mounted layer (it sees corral and the
  // layer read-only): the layer's lock is held for as long as the sandbox lives.
  const std::string bin = corral_binary();
  auto r = corral({"run", "--workspace", ws + ":cow", "--layer", layer, "--ro",
                   bin.substr(0, bin.rfind('/')), "--ro", dir.path(), "--env", "CORRAL_HOME", "--", bin,
                   "rollback", "--layer", layer, "cp"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot roll back while the workspace is mounted by a running sandbox"),
            std::string::npos) << r.err;
  EXPECT_EQ(corral({"rollback", "--layer", layer, "cp"}).exit_code, 0);  // stopped: fine
}

TEST_F(CowTest, ApplyCopiesTheChangesAndRefusesOverAHostSideChange) {
  const std::string layer = dir.file("layer");
  auto r = corral({"run", "--workspace", ws + ":cow", "--layer", layer, "--", "sh", "-c", kAgent});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  // The host edits a file the sandbox also edited (and one it did not touch).
  write_file(ws + "/edit.txt", "host edit\n");
  write_file(ws + "/keepdir/k", "host only\n");
  auto refused = corral({"apply", "--layer", layer});
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_NE(refused.err.find("the host changed since the sandbox started"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find(ws + "/edit.txt"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.err.find("keepdir"), std::string::npos) << refused.err;
  EXPECT_TRUE(path_exists(ws + "/gone.txt"));  // nothing applied

  auto some = corral({"apply", "--layer", layer, "--paths", "new.txt", "fresh", "dir", "script.sh"});
  ASSERT_EQ(some.exit_code, 0) << some.err;
  EXPECT_EQ(read_file(ws + "/new.txt"), "added\n");
  EXPECT_EQ(read_file(ws + "/fresh/deep/f"), "d\n");
  EXPECT_FALSE(path_exists(ws + "/dir"));
  struct stat st;
  ASSERT_EQ(stat((ws + "/script.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
  EXPECT_TRUE(path_exists(ws + "/gone.txt"));  // not picked
  EXPECT_EQ(read_file(ws + "/edit.txt"), "host edit\n");
}

TEST_F(CowTest, BadInputGivesItsMessage) {
  const std::string layer = dir.file("layer");
  ASSERT_EQ(corral({"run", "--workspace", ws + ":cow", "--layer", layer, "--", "touch", "x"}).exit_code, 0);
  auto unknown = corral({"rollback", "--layer", layer, "nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no checkpoint \"nope\""), std::string::npos) << unknown.err;
  auto bad_tag = corral({"checkpoint", "--layer", layer, "../x"});
  EXPECT_EQ(bad_tag.exit_code, 2);
  EXPECT_NE(bad_tag.err.find("checkpoint tag \"../x\" is not valid"), std::string::npos) << bad_tag.err;
  auto no_layer = corral({"diff", "--layer", dir.file("nothing-here")});
  EXPECT_EQ(no_layer.exit_code, 2);
  EXPECT_NE(no_layer.err.find("is not a workspace layer"), std::string::npos) << no_layer.err;
  auto no_sandbox = corral({"diff", "ghost"});
  EXPECT_EQ(no_sandbox.exit_code, 2);
  EXPECT_NE(no_sandbox.err.find("no sandbox named \"ghost\""), std::string::npos) << no_sandbox.err;
  auto layer_without_cow = corral({"run", "--layer", layer, "--", "true"});
  EXPECT_EQ(layer_without_cow.exit_code, 125);
  EXPECT_NE(layer_without_cow.err.find("--layer: needs a copy-on-write workspace"), std::string::npos)
      << layer_without_cow.err;
  auto inside = corral({"run", "--workspace", ws + ":cow", "--layer", ws + "/layer", "--", "true"});
  EXPECT_EQ(inside.exit_code, 125);
  EXPECT_NE(inside.err.find("inside the copy-on-write workspace"), std::string::npos) << inside.err;
  std::filesystem::create_directories(dir.file("other"));
  auto wrong_lower = corral({"run", "--workspace", dir.file("other") + ":cow", "--layer", layer, "--", "true"});
  EXPECT_EQ(wrong_lower.exit_code, 125);
  EXPECT_NE(wrong_lower.err.find("this layer covers " + ws), std::string::npos) << wrong_lower.err;
}

}  // namespace
}  // namespace corral::test
