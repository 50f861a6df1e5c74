// Helpers for integration tests: run the real `corral` binary and capture what it prints.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace corral::test {

struct CliResult {
  int exit_code = -1;  // exit status, or 128+N if corral itself died of signal N
  std::string out;
  std::string err;
};

struct CliOptions {
  std::string cwd;                                   // empty: the test's cwd
  std::optional<std::map<std::string, std::string>> env;  // empty: inherit the test's env
  std::string stdin_data;
  int timeout_seconds = 60;                          // the test fails (SIGKILL) past this
};

// The binary under test: $CORRAL_BINARY, else the one this build made.
std::string corral_binary();
// tests/data: $CORRAL_TEST_DATA, else the source tree's.
std::string test_data_dir();
// True when the suite runs as an unprivileged user (scripts/test's second lane).
bool unprivileged_lane();

// Runs corral_binary() with `args` and waits for it.
CliResult run_corral(const std::vector<std::string>& args, const CliOptions& opts = {});

// A fresh directory under /tmp removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Whether any process on the host has `needle` in its command line.
bool process_with_arg_exists(const std::string& needle);

void write_file(const std::string& path, const std::string& content);
std::string read_file(const std::string& path);
bool path_exists(const std::string& path);

}  // namespace corral::test
