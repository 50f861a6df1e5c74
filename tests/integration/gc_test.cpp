// `corral gc` and the reaping of a crashed run's cgroup.
#include <gtest/gtest.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "integration/cli_support.hpp"

namespace corral::test {
namespace {

// Where this process's memory cgroup lives (v1 here), from /proc/self/cgroup.
std::string own_memory_cgroup() {
  std::string text = read_file("/proc/self/cgroup");
  auto pos = text.find(":memory:");
  if (pos == std::string::npos) return "";
  auto end = text.find('\n', pos);
  return "/sys/fs/cgroup/memory" + text.substr(pos + 8, end - pos - 8);
}

TEST(Gc, RemovesTheCgroupOfACorralThatWasKilled) {
  std::string base = own_memory_cgroup();
  if (getuid() != 0 || base.empty() || access(base.c_str(), W_OK) != 0) {
    // Without a writable cgroup there is nothing a run could leave behind: gc says so.
    auto r = run_corral({"gc"});
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    EXPECT_TRUE(r.out.find("0 leftover") != std::string::npos || !r.err.empty()) << r.out << r.err;
    return;
  }
  // A run whose owner pid is dead: a child that exited.
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  std::string dir = base + "/corral/" + std::to_string(dead) + "-run-crashed";
  std::filesystem::create_directories(base + "/corral");
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  auto r = run_corral({"gc"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(dir), std::string::npos) << r.out;
  EXPECT_FALSE(path_exists(dir));
}

TEST(Gc, KilledCorralLeavesNoCgroupAfterTheNextRun) {
  std::string base = own_memory_cgroup();
  if (getuid() != 0 || base.empty() || access(base.c_str(), W_OK) != 0) {
    auto r = run_corral({"run", "--memory", "64MiB", "--", "/bin/true"});
    EXPECT_EQ(r.exit_code, 125);  // refused, not run unlimited
    return;
  }
  TempDir ws;
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    std::string bin = corral_binary();
    execl(bin.c_str(), bin.c_str(), "run", "--memory", "64MiB", "--id", "gc-victim", "--workspace",
          ws.path().c_str(), "--", "/bin/sleep", "300", nullptr);
    _exit(99);
  }
  std::string dir = base + "/corral/" + std::to_string(pid) + "-gc-victim";
  for (int i = 0; i < 200 && !path_exists(dir); ++i) usleep(20000);
  ASSERT_TRUE(path_exists(dir)) << "the run never made its cgroup";
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  EXPECT_TRUE(path_exists(dir));  // nobody removed it: corral was killed
  auto r = run_corral({"gc"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(path_exists(dir)) << r.out;
}

}  // namespace
}  // namespace corral::test
