// A fixture for persistent-sandbox tests: its own CORRAL_HOME and workspace, and every sandbox
// it made removed (rm -f) when the test ends, passed or not.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "integration/cli_support.hpp"

extern char** environ;

namespace corral::test {

class SandboxTest : public ::testing::Test {
 protected:
  SandboxTest() {
    std::map<std::string, std::string> env;
    for (char** e = environ; *e; ++e) {
      std::string kv = *e;
      auto eq = kv.find('=');
      if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    env["CORRAL_HOME"] = state_.path();
    env_ = env;
  }
  void TearDown() override {
    for (const auto& n : names_) corral({"rm", "-f", n});
  }

  // A sandbox name this test owns (removed at the end).
  std::string own(const std::string& name) {
    names_.push_back(name);
    return name;
  }
  CliResult corral(const std::vector<std::string>& args, CliOptions o = {}) {
    o.env = env_;
    if (o.cwd.empty()) o.cwd = ws_.path();
    return run_corral(args, o);
  }
  // Creates a running sandbox over the fixture's workspace; fails the test otherwise.
  std::string make(const std::string& name, std::vector<std::string> extra = {}) {
    own(name);
    std::vector<std::string> args{"create", name, "--workspace", ws_.path()};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = corral(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return name;
  }
  nlohmann::json inspect(const std::string& name) {
    auto r = corral({"inspect", name, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }
  std::string state_of(const std::string& name) {
    auto j = inspect(name);
    return j.is_object() ? j.value("state", "") : "";
  }
  std::string sandbox_dir(const std::string& name) const {
    return state_.path() + "/sandboxes/" + name;
  }

  // Whether `pid` is a live process (a zombie has ended: only its reaper is late).
  static bool alive(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto paren = stat.rfind(')');
    return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
  }

  TempDir state_, ws_;
  std::map<std::string, std::string> env_;
  std::vector<std::string> names_;
};

}  // namespace corral::test
