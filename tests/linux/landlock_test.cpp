// Landlock: the ruleset built from a policy, and the rules applied for real in a child.
#include "linux/landlock.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <functional>
#include <sys/stat.h>
#include <fstream>

namespace corral::landlock {
namespace {

int kernel_abi() {
  long v = syscall(SYS_landlock_create_ruleset, nullptr, 0, 1U);
  return v < 0 ? 0 : static_cast<int>(v);
}

TEST(LandlockRuleset, RightsGrowWithTheAbi) {
  EXPECT_EQ(fs_rights_for_abi(0), 0u);
  EXPECT_EQ(fs_rights_for_abi(1), (1ULL << 13) - 1);
  EXPECT_TRUE(fs_rights_for_abi(2) & kRefer);
  EXPECT_FALSE(fs_rights_for_abi(2) & kTruncate);
  EXPECT_TRUE(fs_rights_for_abi(3) & kTruncate);
  EXPECT_FALSE(fs_rights_for_abi(4) & kIoctlDev);
  EXPECT_TRUE(fs_rights_for_abi(7) & kIoctlDev);
  EXPECT_EQ(file_rights(fs_rights_for_abi(7)),
            kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev);
}

TEST(LandlockRuleset, ReadEverywhereWriteOnlyWhereAllowed) {
  EffectivePolicy p;
  p.workspace = "/work/ws";
  p.filesystem.write_allow = {"/work/ws", "/home/u/.cache/pip"};
  Ruleset rs = build_ruleset(p, 7);
  EXPECT_EQ(rs.handled_fs, fs_rights_for_abi(7));
  EXPECT_EQ(rs.scoped, kScopeAbstractUnix | kScopeSignal);
  EXPECT_EQ(rs.restrict_flags, kLogNewExecOn);
  auto find = [&](const std::string& path) -> const Rule* {
    for (const auto& r : rs.rules)
      if (r.path == path) return &r;
    return nullptr;
  };
  ASSERT_NE(find("/"), nullptr);
  EXPECT_FALSE(find("/")->access & (kWriteFile | kMakeReg | kRemoveFile));
  EXPECT_TRUE(find("/")->access & kReadFile);
  ASSERT_NE(find("/work/ws"), nullptr);
  EXPECT_EQ(find("/work/ws")->access, fs_rights_for_abi(7));
  ASSERT_NE(find("/tmp"), nullptr);
  EXPECT_EQ(find("/proc"), nullptr);  // nothing under /proc is writable
  Ruleset old = build_ruleset(p, 5);
  EXPECT_EQ(old.scoped, 0u);
  EXPECT_EQ(old.restrict_flags, 0u);
  EXPECT_TRUE(build_ruleset(p, 0).rules.empty());
}

// Applies a ruleset in a child and reports errno of each attempt through a pipe.
class LandlockApply : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/corral-landlock-XXXXXX";
    root_ = mkdtemp(tmpl);
    std::filesystem::create_directories(root_ + "/rw");
    std::filesystem::create_directories(root_ + "/ro");
    std::ofstream(root_ + "/ro/file") << "content";
    std::ofstream(root_ + "/rw/file") << "content";
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  // Each attempt returns 0 or errno.
  std::vector<int> attempt_in_child(const Ruleset& rs, std::vector<std::function<int()>> tries) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
      int failed = 0;
      int e = apply_ruleset(rs, &failed);
      if (write(fds[1], &e, sizeof e) < 0) _exit(1);
      for (auto& t : tries) {
        int r = t();
        if (write(fds[1], &r, sizeof r) < 0) _exit(1);
      }
      _exit(0);
    }
    close(fds[1]);
    std::vector<int> out;
    int v;
    while (read(fds[0], &v, sizeof v) == sizeof v) out.push_back(v);
    close(fds[0]);
    waitpid(pid, nullptr, 0);
    return out;
  }

  static int open_errno(const std::string& path, int flags) {
    int fd = open(path.c_str(), flags | O_CLOEXEC, 0644);
    if (fd < 0) return errno;
    close(fd);
    return 0;
  }

  std::string root_;
};

TEST_F(LandlockApply, EachAccessRightIsEnforced) {
  int abi = kernel_abi();
  ASSERT_GT(abi, 0) << "Landlock unavailable: `corral doctor` reports this as a warning";
  const std::uint64_t all = fs_rights_for_abi(abi);
  Ruleset rs;
  rs.abi = abi;
  rs.handled_fs = all;
  rs.rules = {{"/", kExecute | kReadFile | kReadDir, true}, {root_ + "/rw", all, true}};
  std::string ro = root_ + "/ro", rw = root_ + "/rw";
  auto res = attempt_in_child(rs, {
      [&] { return open_errno(ro + "/file", O_RDONLY); },                   // read: allowed
      [&] { return open_errno(ro + "/file", O_WRONLY); },                   // write_file
      [&] { return open_errno(ro + "/new", O_WRONLY | O_CREAT); },          // make_reg
      [&] { return mkdir((ro + "/d").c_str(), 0755) == 0 ? 0 : errno; },    // make_dir
      [&] { return unlink((ro + "/file").c_str()) == 0 ? 0 : errno; },      // remove_file
      [&] { return symlink("x", (ro + "/l").c_str()) == 0 ? 0 : errno; },   // make_sym
      [&] { return mkfifo((ro + "/p").c_str(), 0644) == 0 ? 0 : errno; },   // make_fifo
      [&] { return open_errno(ro + "/file", O_RDONLY | O_TRUNC); },         // truncate (ABI 3)
      [&] { return open_errno(rw + "/file", O_WRONLY); },                   // rw: allowed
      [&] { return open_errno(rw + "/new", O_WRONLY | O_CREAT); },
      [&] { return mkdir((rw + "/d").c_str(), 0755) == 0 ? 0 : errno; },
      [&] { return rename((rw + "/new").c_str(), (ro + "/moved").c_str()) == 0 ? 0 : errno; },
  });
  ASSERT_EQ(res.size(), 13u);
  EXPECT_EQ(res[0], 0) << "apply_ruleset";
  EXPECT_EQ(res[1], 0);
  for (int i = 2; i <= 7; ++i) EXPECT_EQ(res[i], EACCES) << "attempt " << i - 1;
  if (abi >= 3) {
    EXPECT_EQ(res[8], EACCES) << "truncate";
  }
  EXPECT_EQ(res[9], 0);
  EXPECT_EQ(res[10], 0);
  EXPECT_EQ(res[11], 0);
  EXPECT_TRUE(res[12] == EACCES || res[12] == EXDEV) << res[12];  // moving out of rw
  EXPECT_TRUE(std::filesystem::exists(ro + "/file"));
  EXPECT_FALSE(std::filesystem::exists(ro + "/new"));
}

}  // namespace
}  // namespace corral::landlock
