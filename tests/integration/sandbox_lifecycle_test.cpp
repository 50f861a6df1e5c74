// Persistent sandboxes through the real binary: create, exec, stop, start, rm, update, the
// home volume's life, the state machine's refusals, recovery after the supervisor is killed.
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "integration/sandbox_fixture.hpp"

namespace corral::test {
namespace {

using SandboxLifecycle = SandboxTest;

bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

TEST_F(SandboxLifecycle, CreateExecStopStartRemove) {
  TempDir extra;
  write_file(extra.file("script.sh"), "echo from-script\n");
  std::string name = make("life", {"--workspace", extra.path() + ":ro"});

  auto ls = corral({"ls", "--json"});
  ASSERT_EQ(ls.exit_code, 0) << ls.err;
  auto list = nlohmann::json::parse(ls.out);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["name"], name);
  EXPECT_EQ(list[0]["state"], "running");
  ASSERT_EQ(list[0]["workspaces"].size(), 2u);
  EXPECT_EQ(list[0]["workspaces"][1]["mode"], "ro");

  // The workspace is writable, at the same path; the :ro one is readable, not writable.
  auto r = corral({"exec", name, "--", "sh", "-c",
                   "pwd; echo made > inside.txt; sh " + extra.file("script.sh") +
                       "; echo x > " + extra.file("nope") + " || echo refused >&2; exit 7"});
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_EQ(r.out, ws_.path() + "\nfrom-script\n");
  EXPECT_TRUE(contains(r.err, "refused")) << r.err;
  EXPECT_EQ(read_file(ws_.file("inside.txt")), "made\n");
  EXPECT_FALSE(path_exists(extra.file("nope")));

  // The home volume: written now, still there after stop and start.
  r = corral({"exec", name, "--", "sh", "-c", "echo kept > \"$HOME/volume.txt\""});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = corral({"stop", name});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(state_of(name), "stopped");
  r = corral({"exec", name, "--", "true"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_TRUE(contains(r.err, "corral start " + name)) << r.err;
  r = corral({"start", name});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = corral({"exec", name, "--", "sh", "-c", "cat \"$HOME/volume.txt\""});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "kept\n");

  // rm refuses a running sandbox without -f; rm -f destroys it, volume and all.
  r = corral({"rm", name});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "rm -f " + name)) << r.err;
  auto pid = inspect(name)["supervisor"]["pid"].get<int>();
  r = corral({"rm", "-f", name});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(path_exists(sandbox_dir(name)));
  EXPECT_FALSE(alive(pid)) << "the supervisor outlived rm";
  r = corral({"exec", name, "--", "true"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_TRUE(contains(r.err, "corral create " + name)) << r.err;

  // A new sandbox of the same name starts with an empty home volume.
  make(name);
  r = corral({"exec", name, "--", "sh", "-c", "test -e \"$HOME/volume.txt\" && echo still-there"});
  EXPECT_EQ(r.out, "");
}

TEST_F(SandboxLifecycle, EveryBadInputHasItsMessageAndStatus) {
  struct Case {
    std::vector<std::string> args;
    int status;
    std::string says;
  };
  std::string name = make("states");
  for (const Case& c : std::vector<Case>{
           {{"create", "bad/name"}, 2, "invalid sandbox name"},
           {{"create", "-x"}, 2, ""},
           {{"create", std::string(64, 'a')}, 2, "longer than 63"},
           {{"create", name}, 2, "already exists"},
           {{"exec", "bad/name", "--", "true"}, 125, "invalid sandbox name"},
           {{"exec", "ghost", "--", "true"}, 125, "corral create ghost"},
           {{"exec", name}, 125, ""},
           {{"exec", name, "--timeout", "soon", "--", "true"}, 125, "--timeout"},
           {{"exec", name, "-t", "-d", "--", "true"}, 125, "-t and -d"},
           {{"stop", "ghost"}, 2, "no sandbox named ghost"},
           {{"start", "ghost"}, 2, "no sandbox named ghost"},
           {{"rm", "ghost"}, 2, "no sandbox named ghost"},
           {{"inspect", "ghost"}, 2, "no sandbox named ghost"},
           {{"ps", "ghost"}, 2, "no sandbox named ghost"},
           {{"logs", name, "nothex!!"}, 2, "invalid job id"},
           {{"logs", name, "00000000"}, 2, "no background process"},
           {{"kill", name, "00000000"}, 2, "no running background process"},
           {{"start", name}, 1, "already running"},
       }) {
    auto r = corral(c.args);
    std::string what = c.args[0] + " " + c.args[1];
    EXPECT_EQ(r.exit_code, c.status) << what << ": " << r.err;
    EXPECT_TRUE(contains(r.err, c.says)) << what << ": " << r.err;
  }
  ASSERT_EQ(corral({"stop", name}).exit_code, 0);
  auto r = corral({"stop", name});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "already stopped")) << r.err;
  r = corral({"kill", name, "00000000"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "corral start " + name)) << r.err;
  // A malformed policy flag is an input error naming it, and leaves nothing behind.
  r = corral({"create", own("filtered"), "--workspace", ws_.path(), "--allow-host",
              "https://pypi.org"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--allow-host")) << r.err;
  EXPECT_TRUE(contains(r.err, "https://pypi.org")) << r.err;
  EXPECT_FALSE(path_exists(sandbox_dir("filtered")));
}

TEST_F(SandboxLifecycle, RequireRefusesPathsOutsideTheWorkspacesBeforeRunning) {
  TempDir extra, elsewhere;
  std::string name = make("preflight", {"--workspace", extra.path() + ":ro"});
  auto r = corral({"exec", name, "--require", elsewhere.file("run.sh"), "--", "sh", "-c",
                   "echo ran > " + ws_.file("ran")});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_TRUE(contains(r.err, elsewhere.file("run.sh") + " is not inside any workspace")) << r.err;
  EXPECT_FALSE(path_exists(ws_.file("ran")));
  r = corral({"exec", name, "--require", extra.file("run.sh"), "--require", ws_.path(), "--",
              "true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(SandboxLifecycle, KilledSupervisorLeavesFailedAndStartRecovers) {
  std::string name = make("crash");
  ASSERT_EQ(corral({"exec", name, "--", "sh", "-c", "echo v > \"$HOME/v\""}).exit_code, 0);
  auto job = corral({"exec", name, "-d", "--", "sleep", "1000"});
  ASSERT_EQ(job.exit_code, 0) << job.err;
  auto j = inspect(name);
  int pid = j["supervisor"]["pid"].get<int>();
  std::vector<int> pids = j["pids"].get<std::vector<int>>();
  ASSERT_GE(pids.size(), 2u);  // the supervisor and the sleep
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  std::string state;
  for (int i = 0; i < 500 && state != "failed"; ++i) {
    state = state_of(name);
    if (state != "failed") std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(state, "failed");
  for (int p : pids) {
    for (int i = 0; i < 500 && alive(p); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(alive(p)) << "process " << p << " outlived its supervisor";
  }
  auto r = corral({"exec", name, "--", "true"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_TRUE(contains(r.err, "has failed") && contains(r.err, "corral start " + name)) << r.err;
  r = corral({"start", name});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = corral({"exec", name, "--", "sh", "-c", "cat \"$HOME/v\""});
  EXPECT_EQ(r.out, "v\n") << r.err;
  auto ps = corral({"ps", name, "--json"});
  auto jobs = nlohmann::json::parse(ps.out);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0]["state"], "killed");
}

TEST_F(SandboxLifecycle, UpdateKeepsTheVolumeAndTakesTheNewPolicy) {
  write_file(ws_.file("policy.toml"), "[env]\nset = { STAGE = \"one\" }\n");
  std::string name = make("upd", {"--policy", ws_.file("policy.toml")});
  ASSERT_EQ(corral({"exec", name, "--", "sh", "-c", "echo v > \"$HOME/v\""}).exit_code, 0);
  auto before = inspect(name)["policy_hash"].get<std::string>();
  write_file(ws_.file("policy.toml"), "[env]\nset = { STAGE = \"two\" }\n");
  auto r = corral({"update", name});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(inspect(name)["policy_hash"].get<std::string>(), before);
  EXPECT_EQ(state_of(name), "running");
  r = corral({"exec", name, "--", "sh", "-c", "echo $STAGE; cat \"$HOME/v\""});
  EXPECT_EQ(r.out, "two\nv\n") << r.err;
}

}  // namespace
}  // namespace corral::test
