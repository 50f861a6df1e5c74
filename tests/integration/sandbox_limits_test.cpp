// Memory, pids and cpu limits on a persistent sandbox, through the real binary: as root the
// sandbox's cgroup holds the whole sandbox (the OOM killer takes a command, never the
// supervisor), survives `corral gc`, and goes with stop; without a writable cgroup, create is
// refused and nothing is left.
#include <unistd.h>

#include "integration/sandbox_fixture.hpp"

namespace corral::test {
namespace {

using SandboxLimits = SandboxTest;

bool cgroups_writable() { return access("/sys/fs/cgroup/memory", W_OK) == 0 && getuid() == 0; }

TEST_F(SandboxLimits, LimitsHoldForEveryExecAndTheSupervisorSurvives) {
  std::string name = own("limited");
  // 256 MiB, not less: the OOM killer weighs each process's whole resident memory, and the
  // supervisor's counts although it was charged elsewhere. A command's oom_score_adj of 1000 adds
  // the limit's worth to its own score, which outweighs a release supervisor (~3 MB) at any
  // limit but an ASan one (~150 MB) only from about this size.
  auto r = corral({"create", name, "--workspace", ws_.path(), "--memory", "256MiB", "--pids", "32"});
  if (!cgroups_writable()) {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("cgroup"), std::string::npos) << r.err;
    EXPECT_FALSE(path_exists(sandbox_dir(name))) << "a refused create left a sandbox";
    return;
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto state = nlohmann::json::parse(read_file(sandbox_dir(name) + "/state.json"));
  std::vector<std::string> dirs = state["cgroup"];
  ASSERT_FALSE(dirs.empty());
  for (const auto& d : dirs) EXPECT_TRUE(path_exists(d)) << d;

  r = corral({"exec", name, "--", "/usr/bin/python3", "-c",
              "x = bytearray(1 << 30); print('ESCAPED')"});
  EXPECT_EQ(r.exit_code, 137) << r.err;
  EXPECT_EQ(r.out.find("ESCAPED"), std::string::npos);
  // inspect reports what the cgroup counted: the OOM kill, a peak at the limit.
  auto usage = inspect(name)["cgroup_usage"];
  ASSERT_TRUE(usage.is_object()) << usage.dump();
  EXPECT_EQ(usage["oom_kills"], 1) << usage.dump();
  EXPECT_GT(usage["peak_memory_bytes"].get<std::uint64_t>(), 200u << 20) << usage.dump();
  EXPECT_LE(usage["peak_memory_bytes"].get<std::uint64_t>(), 256u << 20) << usage.dump();
  EXPECT_GE(usage["pids"].get<std::uint64_t>(), 1u) << usage.dump();
  // A fork flood stops at the limit (the supervisor and python count too).
  r = corral({"exec", name, "--", "/usr/bin/python3", "-c",
              "import os, signal, time\n"
              "kids = []\n"
              "try:\n"
              "    for i in range(64):\n"
              "        pid = os.fork()\n"
              "        if pid == 0:\n"
              "            time.sleep(30); os._exit(0)\n"
              "        kids.append(pid)\n"
              "except OSError as e:\n"
              "    print('refused', e.errno)\n"
              "print(len(kids))\n"
              "for k in kids: os.kill(k, signal.SIGKILL)\n"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("refused 11\n", 0), 0u) << r.out;  // EAGAIN
  auto last = r.out.substr(r.out.find('\n') + 1);
  EXPECT_LE(std::stoi(last.empty() ? "999" : last), 30) << r.out;
  // The supervisor was not the OOM killer's choice, and the cgroup outlives `corral gc`.
  EXPECT_EQ(corral({"gc"}).exit_code, 0);
  r = corral({"exec", name, "--", "sh", "-c", "echo alive"});
  EXPECT_EQ(r.out, "alive\n") << r.err;
  for (const auto& d : dirs) EXPECT_TRUE(path_exists(d)) << d;

  ASSERT_EQ(corral({"stop", name}).exit_code, 0);
  for (const auto& d : dirs) EXPECT_FALSE(path_exists(d)) << d;
  // start makes a new one for the new supervisor.
  ASSERT_EQ(corral({"start", name}).exit_code, 0);
  state = nlohmann::json::parse(read_file(sandbox_dir(name) + "/state.json"));
  ASSERT_FALSE(state["cgroup"].empty());
  EXPECT_NE(state["cgroup"][0], dirs[0]);
  std::vector<std::string> again = state["cgroup"];
  ASSERT_EQ(corral({"rm", "-f", name}).exit_code, 0);
  for (const auto& d : again) EXPECT_FALSE(path_exists(d)) << d;
}

}  // namespace
}  // namespace corral::test
