// The [process] policy through the real binary: nested user namespaces, the strict profile and
// seccomp profile files (extra blocked calls, observed in the record; bad files refused).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "integration/cli_support.hpp"

namespace corral::test {
namespace {

class ProcessPolicyTest : public ::testing::Test {
 protected:
  CliResult run(const std::vector<std::string>& cmd, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"run", "--workspace", ws_.path()};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("--");
    args.insert(args.end(), cmd.begin(), cmd.end());
    CliOptions opts;
    opts.cwd = ws_.path();
    return run_corral(args, opts);
  }
  CliResult python(const std::string& code, std::vector<std::string> extra = {}) {
    return run({"/usr/bin/python3", "-c", code}, std::move(extra));
  }
  TempDir ws_;
};

TEST_F(ProcessPolicyTest, NestedUserNamespacesOnlyWhenAllowed) {
  auto blocked = run({"unshare", "-U", "true"});
  EXPECT_NE(blocked.exit_code, 0) << blocked.err;
  auto allowed = run({"unshare", "-U", "true"}, {"--allow-nested-userns"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;

  write_file(ws_.file("p.toml"), "[process]\nallow_nested_userns = true\n");
  auto from_file = run({"unshare", "-U", "true"}, {"--policy", ws_.file("p.toml")});
  EXPECT_EQ(from_file.exit_code, 0) << from_file.err;
}

TEST_F(ProcessPolicyTest, StrictProfileRefusesNetlinkSockets) {
  const std::string code =
      "import socket, errno\n"
      "try:\n"
      "    socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close()\n"
      "    print('ok')\n"
      "except OSError as e:\n"
      "    print(errno.errorcode[e.errno])\n";
  auto def = python(code);
  ASSERT_EQ(def.exit_code, 0) << def.err;
  EXPECT_EQ(def.out, "ok\n");
  auto strict = python(code, {"--seccomp", "strict"});
  ASSERT_EQ(strict.exit_code, 0) << strict.err;
  EXPECT_EQ(strict.out, "EPERM\n");
}

TEST_F(ProcessPolicyTest, ProfileFileBlocksAndRecordsExtraCalls) {
  write_file(ws_.file("profile.toml"), "block = [\"getcwd\"]\n");
  const std::string rec = ws_.file("rec.json");
  const std::string code =
      "import os\n"
      "try:\n"
      "    os.getcwd()\n"
      "    print('ok')\n"
      "except PermissionError:\n"
      "    print('PermissionError')\n";
  auto r = python(code, {"--seccomp", "profile.toml", "--record", rec});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "PermissionError\n");
  auto j = nlohmann::json::parse(read_file(rec));
  bool found = false;
  for (const auto& v : j["violations"])
    if (v["kind"] == "seccomp" && v["subject"] == "getcwd") found = true;
  EXPECT_TRUE(found) << j["violations"].dump();

  auto plain = python(code);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, "ok\n");
}

// mknod is watched (for write_deny) for files and FIFOs; a profile that blocks it outright
// still blocks it for every mode, under the default and the strict base alike.
TEST_F(ProcessPolicyTest, AProfileBlockOfMknodHoldsForFifosToo) {
  for (const char* base : {"default", "strict"}) {
    SCOPED_TRACE(base);
    write_file(ws_.file("profile.toml"), std::string("base = \"") + base +
                                             "\"\nblock = [\"mknod\", \"mknodat\"]\n");
    auto r = run({"/bin/sh", "-c", "mkfifo f && echo made; rm -f f"},
                 {"--seccomp", "profile.toml"});
    EXPECT_EQ(r.out, "") << r.err;
    auto plain = run({"/bin/sh", "-c", "mkfifo f && echo made; rm -f f"}, {"--seccomp", base});
    EXPECT_EQ(plain.out, "made\n") << plain.err;
  }
}

TEST_F(ProcessPolicyTest, BadProfileIsRefusedWith125) {
  const std::string prof = ws_.file("bad.toml");
  write_file(prof, "base = \"default\"\nblock = [\"getcwd\", \"corral_not_a_syscall\"]\n");
  auto r = run({"/bin/true"}, {"--seccomp", prof});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_NE(r.err.find(prof + ":2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("block[1]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("corral_not_a_syscall"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace corral::test
