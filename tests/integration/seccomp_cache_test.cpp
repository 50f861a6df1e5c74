// The compiled seccomp filter is cached under the state root: a second run loads it from
// there, still refuses what the filter refuses, and an entry someone else could have written
// is never trusted.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "integration/cli_support.hpp"

namespace corral::test {
namespace {

class SeccompCache : public ::testing::Test {
 protected:
  CliResult run_mount_attempt() {
    CliOptions o{ws_.path()};
    o.env = std::map<std::string, std::string>{{"CORRAL_HOME", home_.path()},
                                               {"PATH", "/usr/bin:/bin"},
                                               {"HOME", home_.path()}};
    return run_corral({"run", "--workspace", ws_.path(), "--record", ws_.file("r.json"), "--",
                       "/bin/sh", "-c", "mount -t tmpfs x /tmp 2>/dev/null && echo ESCAPED; true"},
                      o);
  }
  void expect_refused_and_recorded(const CliResult& r) {
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("ESCAPED"), std::string::npos);
    const auto rec = nlohmann::json::parse(read_file(ws_.file("r.json")));
    bool found = false;
    for (const auto& v : rec["violations"]) found = found || (v["kind"] == "seccomp" && v["subject"] == "mount");
    EXPECT_TRUE(found) << rec["violations"].dump();
  }
  std::string the_entry() const {
    std::string found;
    for (const auto& e : std::filesystem::directory_iterator(home_.path() + "/cache"))
      if (e.path().filename().string().rfind("seccomp-", 0) == 0) {
        EXPECT_TRUE(found.empty()) << "more than one entry";
        found = e.path().string();
      }
    return found;
  }
  TempDir ws_, home_;
};

TEST_F(SeccompCache, TheSecondRunLoadsTheFilterAndItStillHolds) {
  expect_refused_and_recorded(run_mount_attempt());
  const std::string entry = the_entry();
  ASSERT_FALSE(entry.empty());
  struct stat first;
  ASSERT_EQ(stat(entry.c_str(), &first), 0);
  EXPECT_EQ(first.st_mode & 07777, 0600u);
  expect_refused_and_recorded(run_mount_attempt());
  struct stat second;
  ASSERT_EQ(stat(entry.c_str(), &second), 0);
  EXPECT_EQ(second.st_ino, first.st_ino) << "the entry was rewritten, not used";
}

TEST_F(SeccompCache, AnEntryOthersCouldWriteIsNotTrusted) {
  expect_refused_and_recorded(run_mount_attempt());
  const std::string entry = the_entry();
  ASSERT_FALSE(entry.empty());
  // A whole, valid entry, but group-writable: someone else could have put anything there, so
  // corral must not load it; it compiles afresh and replaces it.
  ASSERT_EQ(chmod(entry.c_str(), 0664), 0);
  struct stat exposed;
  ASSERT_EQ(stat(entry.c_str(), &exposed), 0);
  expect_refused_and_recorded(run_mount_attempt());
  struct stat after;
  ASSERT_EQ(stat(entry.c_str(), &after), 0);
  EXPECT_NE(after.st_ino, exposed.st_ino);
  EXPECT_EQ(after.st_mode & 07777, 0600u);
}

TEST_F(SeccompCache, ABrokenEntryIsCompiledAfresh) {
  expect_refused_and_recorded(run_mount_attempt());
  const std::string entry = the_entry();
  ASSERT_FALSE(entry.empty());
  write_file(entry, "corral-seccomp-cache 1\ngarbage");
  ASSERT_EQ(chmod(entry.c_str(), 0600), 0);
  struct stat broken;
  ASSERT_EQ(stat(entry.c_str(), &broken), 0);
  expect_refused_and_recorded(run_mount_attempt());
  struct stat after;
  ASSERT_EQ(stat(entry.c_str(), &after), 0);
  EXPECT_NE(after.st_ino, broken.st_ino);
}

}  // namespace
}  // namespace corral::test
