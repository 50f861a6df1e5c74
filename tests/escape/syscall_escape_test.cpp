// Every syscall the default seccomp filter blocks, attempted from inside `corral run`: each must
// fail with EPERM (ENOSYS for clone3) and appear in the run record as a seccomp violation.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "integration/cli_support.hpp"

namespace corral::test {
namespace {

struct BlockedCall {
  const char* name;    // as libseccomp names it (the record's subject starts with it)
  const char* python;  // expression calling it through ctypes: `c` is libc
};

#if defined(__x86_64__)
// Raw syscall numbers of x86_64: the calls are made exactly, not through a wrapper that might
// refuse before the kernel sees them.
const BlockedCall kCalls[] = {
    {"mount", "c.syscall(165, b'none', b'/tmp', b'tmpfs', 0, 0)"},
    {"umount2", "c.syscall(166, b'/proc', 2)"},
    {"pivot_root", "c.syscall(155, b'/tmp', b'/tmp')"},
    {"open_tree", "c.syscall(428, -100, b'/', 1)"},
    {"move_mount", "c.syscall(429, -1, b'', -100, b'/tmp', 4)"},
    {"fsopen", "c.syscall(430, b'tmpfs', 0)"},
    {"fsconfig", "c.syscall(431, 3, 6, 0, 0, 0)"},
    {"fsmount", "c.syscall(432, 3, 0, 0)"},
    {"fspick", "c.syscall(433, -100, b'/', 0)"},
    {"mount_setattr", "c.syscall(442, -100, b'/', 0, 0, 0)"},
    {"unshare", "c.syscall(272, 0x10000000)"},
    {"clone", "c.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)"},
    {"setns", "c.syscall(308, 0, 0)"},
    {"ptrace", "c.syscall(101, 16, 1, 0, 0)"},
    {"process_vm_readv", "c.syscall(310, 1, 0, 0, 0, 0, 0)"},
    {"process_vm_writev", "c.syscall(311, 1, 0, 0, 0, 0, 0)"},
    {"bpf", "c.syscall(321, 0, 0, 0)"},
    {"perf_event_open", "c.syscall(298, 0, 0, -1, -1, 0)"},
    {"keyctl", "c.syscall(250, 0, 0, 0, 0, 0)"},
    {"add_key", "c.syscall(248, b'user', b'k', b'v', 1, -2)"},
    {"request_key", "c.syscall(249, b'user', b'k', 0, 0)"},
    {"userfaultfd", "c.syscall(323, 0)"},
    {"io_uring_setup", "c.syscall(425, 1, 0)"},
    {"io_uring_enter", "c.syscall(426, 0, 0, 0, 0, 0, 0)"},
    {"io_uring_register", "c.syscall(427, 0, 0, 0, 0)"},
    {"kexec_load", "c.syscall(246, 0, 0, 0, 0)"},
    {"kexec_file_load", "c.syscall(320, 0, 0, 0, 0, 0)"},
    {"init_module", "c.syscall(175, 0, 0, b'')"},
    {"finit_module", "c.syscall(313, 0, b'', 0)"},
    {"delete_module", "c.syscall(176, b'dummy', 0)"},
    {"reboot", "c.syscall(169, 0xfee1dead, 672274793, 0x4321fedc, 0)"},
    {"swapon", "c.syscall(167, b'/tmp/x', 0)"},
    {"swapoff", "c.syscall(168, b'/tmp/x')"},
    {"acct", "c.syscall(163, b'/tmp/x')"},
    {"personality", "c.syscall(135, 0x0040000)"},
    {"ioctl(TIOCSTI)", "c.syscall(16, 0, 0x5412, ctypes.byref(ctypes.c_char(b'x')))"},
    {"ioctl(TIOCLINUX)", "c.syscall(16, 0, 0x541C, ctypes.byref(ctypes.c_char(b'\\x06')))"},
    {"open_by_handle_at", "c.syscall(304, 3, 0, 0)"},
    {"settimeofday", "c.syscall(164, 0, 0)"},
    {"clock_settime", "c.syscall(227, 0, 0)"},
};

class BlockedSyscall : public ::testing::TestWithParam<BlockedCall> {};

TEST_P(BlockedSyscall, FailsWithEpermAndIsRecorded) {
  const BlockedCall& call = GetParam();
  TempDir ws;
  std::string script =
      "import ctypes\n"
      "c = ctypes.CDLL(None, use_errno=True)\n"
      "r = " + std::string(call.python) + "\n"
      "print(r, ctypes.get_errno())\n";
  write_file(ws.file("try.py"), script);
  std::string rec = ws.file("rec.json");
  auto r = run_corral({"run", "--workspace", ws.path(), "--record", rec, "--",
                       "/usr/bin/python3", ws.file("try.py")},
                      CliOptions{ws.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "-1 1\n") << call.name << " was not refused with EPERM";
  auto j = nlohmann::json::parse(read_file(rec));
  bool found = false;
  for (const auto& v : j["violations"])
    if (v["kind"] == "seccomp" && v["subject"] == call.name) found = true;
  EXPECT_TRUE(found) << call.name << " missing from the record: " << j["violations"].dump();
  EXPECT_NE(r.err.find("violation"), std::string::npos) << "no summary on stderr: " << r.err;
  EXPECT_NE(r.err.find("seccomp " + std::string(call.name)), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(DefaultFilter, BlockedSyscall, ::testing::ValuesIn(kCalls),
                         [](const auto& info) {
                           std::string n = info.param.name;
                           for (char& ch : n)
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(BlockedSyscallQuiet, QuietSuppressesTheSummaryNotTheRecord) {
  TempDir ws;
  auto r = run_corral({"run", "--quiet", "--workspace", ws.path(), "--record", ws.file("rec.json"),
                       "--", "/bin/sh", "-c", "unshare -U true"},
                      CliOptions{ws.path()});
  EXPECT_EQ(r.err.find("corral:"), std::string::npos) << r.err;
  auto j = nlohmann::json::parse(read_file(ws.file("rec.json")));
  EXPECT_FALSE(j["violations"].empty());
}

TEST(BlockedSyscallClone3, Clone3FailsWithEnosysSoLibcFallsBack) {
  TempDir ws;
  auto r = run_corral({"run", "--workspace", ws.path(), "--", "/usr/bin/python3", "-c",
                       "import ctypes; c = ctypes.CDLL(None, use_errno=True); "
                       "print(c.syscall(435, 0, 0), ctypes.get_errno()); "
                       "import threading; t = threading.Thread(target=print, args=('thread',)); "
                       "t.start(); t.join()"},
                      CliOptions{ws.path()});
  EXPECT_EQ(r.out, "-1 38\nthread\n") << r.err;
}
#endif

}  // namespace
}  // namespace corral::test
