// Persistent sandboxes with a copy-on-write workspace, through the real binary: `corral create
// NAME --workspace P:cow`, execs writing through the overlay, the layer kept across stop/start
// and removed by rm, the workspace verbs by NAME (diff, checkpoint, checkpoints, rollback,
// apply) and `corral fork NAME NEW`. Runs in both lanes (overlayfs inside the sandbox's user
// namespace needs no privilege).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "integration/sandbox_fixture.hpp"

namespace corral::test {
namespace {

class SandboxCowTest : public SandboxTest {
 protected:
  void SetUp() override {
    write_file(ws_.file("edit.txt"), "orig\n");
    write_file(ws_.file("gone.txt"), "bye\n");
  }
  void create_cow(const std::string& name) {
    own(name);
    auto r = corral({"create", name, "--workspace", ws_.path() + ":cow"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  CliResult sh(const std::string& name, const std::string& script) {
    return corral({"exec", name, "--", "sh", "-c", "cd " + ws_.path() + " && " + script});
  }
  // "kind type path" of every change `corral diff NAME --json` lists.
  std::set<std::string> changes_of(const std::string& name) {
    auto r = corral({"diff", name, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::set<std::string> out;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    if (!j.is_object()) return {"unparsable: " + r.out};
    for (const auto& c : j["changes"])
      out.insert(c["kind"].get<std::string>() + " " + c["type"].get<std::string>() + " " +
                 c["path"].get<std::string>());
    return out;
  }
};

TEST_F(SandboxCowTest, ExecsWriteThroughTheOverlayWhichOutlivesStopAndStartAndGoesWithRm) {
  create_cow("cow1");
  const std::string layer = sandbox_dir("cow1") + "/workspace";
  ASSERT_TRUE(path_exists(layer + "/upper"));
  auto base = nlohmann::json::parse(read_file(layer + "/base.json"), nullptr, false);
  ASSERT_TRUE(base.is_object());
  EXPECT_EQ(base.value("lower", ""), ws_.path());

  auto w = sh("cow1", "echo new > new.txt && echo changed > edit.txt && rm gone.txt && cat edit.txt");
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_EQ(w.out, "changed\n");
  // The host directory is untouched.
  EXPECT_FALSE(path_exists(ws_.file("new.txt")));
  EXPECT_EQ(read_file(ws_.file("edit.txt")), "orig\n");
  EXPECT_EQ(read_file(ws_.file("gone.txt")), "bye\n");
  const std::set<std::string> expected{"added file new.txt", "modified file edit.txt",
                                       "deleted file gone.txt"};
  EXPECT_EQ(changes_of("cow1"), expected);
  auto stat = corral({"diff", "cow1", "--stat"});
  EXPECT_EQ(stat.exit_code, 0) << stat.err;
  EXPECT_NE(stat.out.find("new.txt"), std::string::npos) << stat.out;
  auto patch = corral({"diff", "cow1", "--patch"});
  EXPECT_EQ(patch.exit_code, 0) << patch.err;
  EXPECT_NE(patch.out.find("+changed"), std::string::npos) << patch.out;

  // Stop and start: the same layer is mounted again.
  ASSERT_EQ(corral({"stop", "cow1"}).exit_code, 0);
  EXPECT_EQ(changes_of("cow1"), expected);
  auto st = corral({"start", "cow1"});
  ASSERT_EQ(st.exit_code, 0) << st.err;
  auto r = sh("cow1", "cat edit.txt new.txt && test ! -e gone.txt");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "changed\nnew\n");
  // update recreates the supervisor over the same layer.
  auto up = corral({"update", "cow1"});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  r = sh("cow1", "cat edit.txt");
  EXPECT_EQ(r.out, "changed\n") << r.err;
  EXPECT_EQ(changes_of("cow1"), expected);

  ASSERT_EQ(corral({"rm", "-f", "cow1"}).exit_code, 0);
  EXPECT_FALSE(path_exists(sandbox_dir("cow1")));
  EXPECT_EQ(read_file(ws_.file("edit.txt")), "orig\n");
}

TEST_F(SandboxCowTest, CheckpointAndRollbackRestoreExactlyAndRefuseWhileRunning) {
  create_cow("cow2");
  ASSERT_EQ(sh("cow2", "echo one > a.txt").exit_code, 0);
  auto cp = corral({"checkpoint", "cow2", "t1"});
  ASSERT_EQ(cp.exit_code, 0) << cp.err;
  ASSERT_EQ(sh("cow2", "echo two > a.txt && echo b > b.txt && rm gone.txt").exit_code, 0);
  auto list = corral({"checkpoints", "cow2"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("t1"), std::string::npos) << list.out;

  // Running: the overlay is mounted, so rollback refuses, says why and what to do, and
  // changes nothing.
  auto busy = corral({"rollback", "cow2", "t1"});
  EXPECT_EQ(busy.exit_code, 1);
  EXPECT_NE(busy.err.find("corral stop cow2"), std::string::npos) << busy.err;
  EXPECT_EQ(sh("cow2", "cat a.txt").out, "two\n");

  ASSERT_EQ(corral({"stop", "cow2"}).exit_code, 0);
  auto unknown = corral({"rollback", "cow2", "nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("nope"), std::string::npos) << unknown.err;
  auto rb = corral({"rollback", "cow2", "t1"});
  ASSERT_EQ(rb.exit_code, 0) << rb.err;
  EXPECT_EQ(changes_of("cow2"), (std::set<std::string>{"added file a.txt"}));
  ASSERT_EQ(corral({"start", "cow2"}).exit_code, 0);
  auto r = sh("cow2", "cat a.txt gone.txt && test ! -e b.txt");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "one\nbye\n");
}

TEST_F(SandboxCowTest, ForkMakesAStoppedSandboxThatDivergesIndependently) {
  create_cow("cow3");
  ASSERT_EQ(sh("cow3", "echo s > shared.txt && echo h > \"$HOME/corral-fork-home.txt\"").exit_code, 0);
  auto f = corral({"fork", "cow3", own("cow3b")});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  EXPECT_EQ(state_of("cow3b"), "stopped");
  EXPECT_EQ(state_of("cow3"), "running");
  auto base = nlohmann::json::parse(read_file(sandbox_dir("cow3b") + "/workspace/base.json"),
                                    nullptr, false);
  ASSERT_TRUE(base.is_object());
  EXPECT_EQ(base.value("lower", ""), ws_.path());
  ASSERT_EQ(corral({"start", "cow3b"}).exit_code, 0);

  ASSERT_EQ(sh("cow3", "echo 1 > only1.txt").exit_code, 0);
  ASSERT_EQ(sh("cow3b", "echo 2 > only2.txt && rm edit.txt").exit_code, 0);
  EXPECT_EQ(changes_of("cow3"), (std::set<std::string>{"added file shared.txt", "added file only1.txt"}));
  EXPECT_EQ(changes_of("cow3b"), (std::set<std::string>{"added file shared.txt", "added file only2.txt",
                                                        "deleted file edit.txt"}));
  // The home volume was copied, and diverges too.
  auto h = corral({"exec", "cow3b", "--", "sh", "-c", "cat \"$HOME/corral-fork-home.txt\" && echo x > \"$HOME/only-b\""});
  EXPECT_EQ(h.exit_code, 0) << h.err;
  EXPECT_EQ(h.out, "h\n");
  EXPECT_EQ(corral({"exec", "cow3", "--", "sh", "-c", "test ! -e \"$HOME/only-b\""}).exit_code, 0);
  EXPECT_EQ(read_file(ws_.file("edit.txt")), "orig\n");

  // Onto an existing name: refused like create, nothing touched.
  auto again = corral({"fork", "cow3", "cow3b"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("sandbox cow3b already exists"), std::string::npos) << again.err;
  EXPECT_EQ(state_of("cow3b"), "running");
  auto missing = corral({"fork", "no-such-box", "other"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("no-such-box"), std::string::npos) << missing.err;
  EXPECT_FALSE(path_exists(sandbox_dir("other")));
}

TEST_F(SandboxCowTest, ApplyByNameCopiesTheChangesOntoTheHost) {
  create_cow("cow4");
  ASSERT_EQ(sh("cow4", "echo new > new.txt && echo changed > edit.txt && rm gone.txt").exit_code, 0);
  auto some = corral({"apply", "cow4", "--paths", "new.txt"});
  ASSERT_EQ(some.exit_code, 0) << some.err;
  EXPECT_EQ(read_file(ws_.file("new.txt")), "new\n");
  EXPECT_EQ(read_file(ws_.file("edit.txt")), "orig\n");
  auto all = corral({"apply", "cow4"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(read_file(ws_.file("edit.txt")), "changed\n");
  EXPECT_FALSE(path_exists(ws_.file("gone.txt")));
}

TEST_F(SandboxCowTest, BadInputNamesWhatIsWrong) {
  auto d = corral({"diff", "no-such-box"});
  EXPECT_EQ(d.exit_code, 2);
  EXPECT_NE(d.err.find("no-such-box"), std::string::npos) << d.err;
  make("plain");  // a writable workspace, no layer
  auto c = corral({"checkpoint", "plain", "t"});
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.err.find("copy-on-write"), std::string::npos) << c.err;
  auto f = corral({"fork", "plain"});
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_NE(f.err.find("NAME NEW"), std::string::npos) << f.err;
  auto bad = corral({"fork", "plain", "bad/name"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad/name"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace corral::test
