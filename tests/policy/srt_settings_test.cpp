// Tests of the sandbox-runtime (srt) settings import: mapping, network semantics, errors and
// the report of settings corral does not honour.
#include <gtest/gtest.h>

#include <algorithm>

#include "policy/load.hpp"
#include "policy_test_support.hpp"

namespace corral {
namespace {

using test::error_of;

struct Imported {
  Policy policy;
  std::vector<std::string> notes;
};

Result<Imported> import(const std::string& json, Policy base = Policy{}) {
  Imported out{std::move(base), {}};
  if (auto r = merge_srt_settings_json(out.policy, json, "srt.json", out.notes); !r)
    return r.error();
  return out;
}

bool has_note(const std::vector<std::string>& notes, const std::string& key) {
  const std::string want = "srt: " + key + " is not supported by corral and was not applied";
  return std::find(notes.begin(), notes.end(), want) != notes.end();
}

TEST(SrtSettings, MapsFilesystemLists) {
  auto r = import(R"({
    "filesystem": {
      "denyRead": ["~/.ssh", "/secret"],
      "allowRead": ["~/.ssh/known_hosts"],
      "allowWrite": [".", "/tmp/build"],
      "denyWrite": [".env"]
    }
  })");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  const auto& fs = r->policy.filesystem;
  EXPECT_EQ(fs.read_deny, (std::vector<std::string>{"~/.ssh", "/secret"}));
  EXPECT_EQ(fs.read_allow, (std::vector<std::string>{"~/.ssh/known_hosts"}));
  EXPECT_EQ(fs.write_allow, (std::vector<std::string>{".", "/tmp/build"}));
  EXPECT_EQ(fs.write_deny, (std::vector<std::string>{".env"}));
  EXPECT_TRUE(r->notes.empty());
}

TEST(SrtSettings, ListsAppendToThePolicy) {
  auto r = import(R"({"filesystem": {"denyRead": ["/x"], "allowWrite": [], "denyWrite": []}})",
                  default_policy());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->policy.filesystem.read_deny.size(),
            default_policy().filesystem.read_deny.size() + 1);
  EXPECT_EQ(r->policy.filesystem.read_deny.back(), "/x");
}

TEST(SrtSettings, AllowedDomainsMeanAllowlist) {
  auto r = import(R"({"network": {"allowedDomains": ["pypi.org", "*.github.com"],
                                  "deniedDomains": ["evil.github.com"],
                                  "allowLocalBinding": true}})");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  const auto& net = r->policy.network;
  EXPECT_EQ(net.mode, NetMode::allowlist);
  EXPECT_EQ(net.allow, (std::vector<std::string>{"pypi.org", "*.github.com"}));
  EXPECT_EQ(net.deny, (std::vector<std::string>{"evil.github.com"}));
  EXPECT_TRUE(net.allow_local_binding);
  EXPECT_TRUE(validate_policy(r->policy).ok());
}

TEST(SrtSettings, EmptyAllowedDomainsDenyAllNetwork) {
  Policy base;
  base.network.mode = NetMode::all;
  auto r = import(R"({"network": {"allowedDomains": [], "deniedDomains": []}})", base);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->policy.network.mode, NetMode::none);

  // An earlier allowlist is kept: srt settings add to what the policy files said.
  base.network.mode = NetMode::allowlist;
  base.network.allow = {"pypi.org"};
  r = import(R"({"network": {"allowedDomains": []}})", base);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->policy.network.mode, NetMode::allowlist);
  EXPECT_EQ(r->policy.network.allow, (std::vector<std::string>{"pypi.org"}));
}

TEST(SrtSettings, NoNetworkSectionLeavesTheModeAlone) {
  Policy base;
  base.network.mode = NetMode::all;
  auto r = import(R"({"filesystem": {"denyRead": []}})", base);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->policy.network.mode, NetMode::all);
}

TEST(SrtSettings, DenyAllStarMeansNoNetwork) {
  auto r = import(R"({"network": {"allowedDomains": ["pypi.org"], "deniedDomains": ["*"]}})");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->policy.network.mode, NetMode::none);
  EXPECT_TRUE(r->policy.network.allow.empty());
  EXPECT_TRUE(r->notes.empty());
  EXPECT_TRUE(validate_policy(r->policy).ok());
}

TEST(SrtSettings, ReportsEverySettingItCannotHonour) {
  auto r = import(R"({
    "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": [], "allowGitConfig": true},
    "network": {
      "allowedDomains": ["pypi.org"], "deniedDomains": ["*:22"],
      "allowUnixSockets": ["/var/run/docker.sock"], "allowAllUnixSockets": true,
      "httpProxyPort": 8080, "socksProxyPort": 1080, "strictAllowlist": true
    },
    "ignoreViolations": {"*": ["/usr/bin"]},
    "enableWeakerNestedSandbox": true,
    "somethingNew": {"a": 1}
  })");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  const auto& notes = r->notes;
  for (const char* key :
       {"filesystem.allowGitConfig", "network.allowUnixSockets", "network.allowAllUnixSockets",
        "network.httpProxyPort", "network.socksProxyPort", "ignoreViolations",
        "enableWeakerNestedSandbox", "somethingNew"})
    EXPECT_TRUE(has_note(notes, key)) << "no note for " << key;
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n.find("network.deniedDomains[0]") != std::string::npos &&
           n.find("*:22") != std::string::npos;
  }));
  EXPECT_EQ(notes.size(), 9u);
  EXPECT_EQ(r->policy.network.mode, NetMode::allowlist);
}

TEST(SrtSettings, SettingsThatMatchCorralAreNotReported) {
  auto r = import(R"({
    "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": [], "allowGitConfig": false},
    "network": {"allowedDomains": [], "deniedDomains": [], "allowUnixSockets": [],
                "allowAllUnixSockets": false, "strictAllowlist": false},
    "ignoreViolations": {},
    "enableWeakerNestedSandbox": false
  })");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_TRUE(r->notes.empty()) << r->notes.front();
}

void expect_error(const std::string& json, int line, const std::string& key,
                  const std::string& message_part) {
  SCOPED_TRACE(json);
  Error e = error_of(import(json));
  EXPECT_EQ(e.code, Errc::invalid_input);
  EXPECT_EQ(e.file, "srt.json");
  EXPECT_EQ(e.line, line);
  EXPECT_EQ(e.key, key);
  EXPECT_NE(e.message.find(message_part), std::string::npos) << e.message;
}

TEST(SrtSettings, WrongTypesAndBadValuesNameTheKey) {
  expect_error("[1]", 1, "", "expected a JSON object");
  expect_error("{\"filesystem\": []}", 1, "filesystem", "expected an object, got an array");
  expect_error("{\n \"filesystem\": {\n  \"denyRead\": \"~/.ssh\"\n }\n}", 3, "filesystem.denyRead",
               "expected an array of strings");
  expect_error("{\"filesystem\": {\n\"allowWrite\": [\".\", 3]}}", 2, "filesystem.allowWrite[1]",
               "expected a string, got an integer");
  expect_error("{\"filesystem\": {\"denyWrite\": [\"a[\"]}}", 1, "filesystem.denyWrite[0]",
               "unbalanced");
  expect_error("{\"network\": {\n\n\"allowedDomains\": [\"https://pypi.org\"]}}", 3,
               "network.allowedDomains[0]", "URL");
  expect_error("{\"network\": {\"deniedDomains\": [\"a b\"]}}", 1, "network.deniedDomains[0]",
               "whitespace");
  expect_error("{\"network\": {\"allowLocalBinding\": \"yes\"}}", 1, "network.allowLocalBinding",
               "expected a boolean");
  expect_error("{\"network\": 5}", 1, "network", "got an integer");
}

TEST(SrtSettings, MalformedJsonNamesFileLineAndByte) {
  Error e = error_of(import("{\n  \"filesystem\": {\n    \"denyRead\": [\"a\",]\n  }\n}"));
  EXPECT_EQ(e.code, Errc::invalid_input);
  EXPECT_EQ(e.file, "srt.json");
  EXPECT_EQ(e.line, 3);
  EXPECT_NE(e.message.find("invalid JSON at byte"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find("[json.exception"), std::string::npos) << e.message;

  e = error_of(import(""));
  EXPECT_EQ(e.file, "srt.json");
  EXPECT_EQ(e.line, 1);
}

TEST(SrtSettings, AFailedImportChangesNothing) {
  Policy p = default_policy();
  std::vector<std::string> notes;
  auto r = merge_srt_settings_json(
      p, R"({"ignoreViolations": {"x": ["y"]}, "filesystem": {"denyRead": ["/a", 1]}})", "s",
      notes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(p.filesystem.read_deny, default_policy().filesystem.read_deny);
  EXPECT_TRUE(notes.empty());
}

TEST(SrtSettingsFile, MissingFileIsNotFound) {
  test::ScratchDir dir;
  Policy p;
  std::vector<std::string> notes;
  Error e = error_of(merge_srt_settings_file(p, dir.at("settings.json"), notes));
  EXPECT_EQ(e.code, Errc::not_found);
  EXPECT_EQ(e.file, dir.at("settings.json"));
}

TEST(SrtSettingsFile, ReadsAFile) {
  test::ScratchDir dir;
  std::string f = dir.write("s.json", R"({"network": {"allowedDomains": ["x.org"]}})");
  Policy p;
  std::vector<std::string> notes;
  ASSERT_TRUE(merge_srt_settings_file(p, f, notes).ok());
  EXPECT_EQ(p.network.allow, (std::vector<std::string>{"x.org"}));
}

}  // namespace
}  // namespace corral
