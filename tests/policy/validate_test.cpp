// Tests of validate_policy(): the final gate for a Policy however it was built.
#include <gtest/gtest.h>

#include "policy/load.hpp"
#include "policy_test_support.hpp"

namespace corral {
namespace {

using test::error_of;

void expect_invalid(const std::function<void(Policy&)>& edit, const std::string& key) {
  Policy p = default_policy();
  edit(p);
  Error e = error_of(validate_policy(p));
  EXPECT_EQ(e.code, Errc::invalid_input);
  EXPECT_EQ(e.key, key);
  EXPECT_TRUE(e.file.empty());
  EXPECT_FALSE(e.message.empty());
}

TEST(ValidatePolicy, DefaultsAreValid) { EXPECT_TRUE(validate_policy(default_policy()).ok()); }

TEST(ValidatePolicy, NetworkAllowNeedsAllowlistMode) {
  expect_invalid([](Policy& p) { p.network.allow = {"pypi.org"}; }, "network.allow");
  expect_invalid(
      [](Policy& p) {
        p.network.mode = NetMode::all;
        p.network.allow = {"pypi.org"};
      },
      "network.allow");
  Policy p = default_policy();
  p.network.mode = NetMode::allowlist;
  p.network.allow = {"pypi.org"};
  EXPECT_TRUE(validate_policy(p).ok());
  p.network.allow.clear();  // allowlist with nothing listed: no host is reachable (srt semantics)
  EXPECT_TRUE(validate_policy(p).ok());
  p.network.mode = NetMode::none;
  p.network.deny = {"x.org"};  // a deny list is harmless in any mode
  EXPECT_TRUE(validate_policy(p).ok());
}

TEST(ValidatePolicy, ChecksEveryEntryWithItsIndex) {
  expect_invalid(
      [](Policy& p) { p.filesystem.read_deny.push_back("a[b"); },
      "filesystem.read_deny[" + std::to_string(default_policy().filesystem.read_deny.size()) + "]");
  expect_invalid(
      [](Policy& p) {
        p.filesystem.read_allow = {"x", ""};
      },
      "filesystem.read_allow[1]");
  expect_invalid([](Policy& p) { p.filesystem.write_allow = {"**x"}; },
                 "filesystem.write_allow[0]");
  expect_invalid([](Policy& p) { p.filesystem.write_deny = {"~u"}; }, "filesystem.write_deny[0]");
  expect_invalid([](Policy& p) { p.filesystem.read_only = {std::string(1, '\0')}; },
                 "filesystem.read_only[0]");
  expect_invalid(
      [](Policy& p) {
        p.network.mode = NetMode::allowlist;
        p.network.allow = {"a b"};
      },
      "network.allow[0]");
  expect_invalid([](Policy& p) { p.network.deny = {"http://x"}; }, "network.deny[0]");
  expect_invalid([](Policy& p) { p.env.pass = {"OK", "NOT OK"}; }, "env.pass[1]");
}

TEST(ValidatePolicy, EnvSetNamesAndValues) {
  expect_invalid([](Policy& p) { p.env.set["1BAD"] = "x"; }, "env.set.1BAD");
  expect_invalid([](Policy& p) { p.env.set["LC_*"] = "x"; }, "env.set.LC_*");
  expect_invalid([](Policy& p) { p.env.set["X"] = std::string("a\0b", 3); }, "env.set.X");
}

TEST(ValidatePolicy, Limits) {
  expect_invalid([](Policy& p) { p.limits.memory_bytes = 0; }, "limits.memory");
  expect_invalid([](Policy& p) { p.limits.output_bytes = 0; }, "limits.output");
  expect_invalid([](Policy& p) { p.limits.pids = 0; }, "limits.pids");
  expect_invalid([](Policy& p) { p.limits.pids = 1ULL << 40; }, "limits.pids");
  expect_invalid([](Policy& p) { p.limits.cpus = 0.0; }, "limits.cpus");
  expect_invalid([](Policy& p) { p.limits.timeout = std::chrono::milliseconds(0); },
                 "limits.timeout");
}

TEST(ValidatePolicy, Workspace) {
  expect_invalid([](Policy& p) { p.workspace = "/srv/*"; }, "workspace");
  expect_invalid([](Policy& p) { p.workspace = "~bob"; }, "workspace");
  Policy p = default_policy();
  p.workspace = "~/proj";
  EXPECT_TRUE(validate_policy(p).ok());
}

}  // namespace
}  // namespace corral
