// `corral policy check` and `corral policy show` through the real binary, as a user runs them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "integration/cli_support.hpp"

namespace corral::test {
namespace {

const std::string kData = std::string(CORRAL_TEST_DATA) + "/policy/";

// "sha256:" and 64 lowercase hex digits. (No std::regex: GCC 12 under ASan warns falsely.)
bool is_policy_hash(const std::string& s) {
  return s.size() == 71 && s.rfind("sha256:", 0) == 0 &&
         s.find_first_not_of("0123456789abcdef", 7) == std::string::npos;
}

// A scratch HOME (with ~/.ssh and ~/.cache/pip) and workspace; corral runs with a minimal env.
class PolicyCli : public ::testing::Test {
 protected:
  PolicyCli() {
    std::filesystem::create_directories(home_.path() + "/.ssh");
    std::filesystem::create_directories(home_.path() + "/.cache/pip");
    home_real_ = std::filesystem::canonical(home_.path()).string();
    ws_real_ = std::filesystem::canonical(ws_.path()).string();
  }

  CliResult corral(const std::vector<std::string>& args) {
    CliOptions opts;
    opts.cwd = ws_.path();
    opts.env =
        std::map<std::string, std::string>{{"HOME", home_.path()}, {"PATH", "/usr/bin:/bin"}};
    return run_corral(args, opts);
  }

  nlohmann::json show_json(std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"policy", "show", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = corral(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }

  TempDir home_, ws_;
  std::string home_real_, ws_real_;
};

TEST_F(PolicyCli, CheckAcceptsAGoodFileAndPrintsItsHash) {
  auto r = corral({"policy", "check", kData + "good.toml"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string prefix = kData + "good.toml: ok (";
  ASSERT_EQ(r.out.rfind(prefix, 0), 0u) << r.out;
  ASSERT_EQ(r.out.size(), prefix.size() + 71 + 2) << r.out;
  EXPECT_TRUE(is_policy_hash(r.out.substr(prefix.size(), 71))) << r.out;
  EXPECT_EQ(r.out.substr(prefix.size() + 71), ")\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(PolicyCli, CheckHashIsTheHashShowReports) {
  auto check = corral({"policy", "check", kData + "good.toml"});
  auto shown = show_json({"--policy", kData + "good.toml"});
  EXPECT_NE(check.out.find(shown["hash"].get<std::string>()), std::string::npos)
      << check.out << " vs " << shown["hash"];
}

struct BadFile {
  const char* name;
  int line;
  const char* key;      // empty for syntax errors
  const char* message;  // a part of the message
};

TEST_F(PolicyCli, CheckRejectsEachKindOfBadInputWithFileLineAndKey) {
  const BadFile cases[] = {
      {"bad_unknown_key.toml", 6, "limits.swap", "unknown key"},
      {"bad_type.toml", 2, "filesystem.read_deny", "expected an array of strings, got a string"},
      {"bad_size.toml", 3, "limits.memory", "invalid size \"2 gigs\""},
      {"bad_duration.toml", 2, "limits.timeout", "a unit is required"},
      {"bad_pids.toml", 2, "limits.pids", "at least 1"},
      {"bad_cpus.toml", 2, "limits.cpus", "at least 0.01"},
      {"bad_glob.toml", 4, "filesystem.read_deny[1]", "unbalanced '['"},
      {"bad_host.toml", 3, "network.allow[1]", "URL"},
      {"bad_env.toml", 2, "env.pass[1]", "environment variable name"},
      {"bad_syntax.toml", 0, "", "TOML syntax error"},
  };
  for (const BadFile& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string file = kData + c.name;
    auto r = corral({"policy", "check", file});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    std::string prefix = "corral: " + file + ":";
    if (c.line > 0) prefix += std::to_string(c.line) + ": " + c.key + ": ";
    EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line per error: " << r.err;
  }
}

TEST_F(PolicyCli, CheckReportsCrossFieldErrorsWithTheFile) {
  const std::string file = kData + "bad_allow_without_mode.toml";
  auto r = corral({"policy", "check", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("corral: " + file + ": network.allow: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("allowlist"), std::string::npos) << r.err;
}

TEST_F(PolicyCli, CheckReportsMissingFilesAndChecksEveryFile) {
  auto r = corral({"policy", "check", ws_.path() + "/nope.toml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nope.toml"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;

  r = corral({"policy", "check", kData + "bad_pids.toml", kData + "good.toml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("good.toml: ok"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("bad_pids.toml:2: limits.pids"), std::string::npos) << r.err;
}

TEST_F(PolicyCli, CheckWithoutAFileIsAUsageError) {
  EXPECT_EQ(corral({"policy", "check"}).exit_code, 2);
  EXPECT_EQ(corral({"policy"}).exit_code, 2);
}

TEST_F(PolicyCli, ShowJsonIsTheResolvedDefaultPolicy) {
  auto j = show_json();
  EXPECT_EQ(j["workspace"], ws_real_);
  EXPECT_EQ(j["filesystem"]["write_allow"], nlohmann::json::array({ws_real_}));
  auto deny = j["filesystem"]["read_deny"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(deny.begin(), deny.end(), home_real_ + "/.ssh"), deny.end());
  EXPECT_EQ(std::find(deny.begin(), deny.end(), home_real_ + "/.aws"), deny.end());
  EXPECT_EQ(j["network"]["mode"], "none");
  EXPECT_EQ(j["env"]["pass"],
            nlohmann::json::array({"HOME", "LANG", "LC_*", "PATH", "TERM", "TZ", "USER"}));
  EXPECT_TRUE(j["limits"]["memory_bytes"].is_null());
  EXPECT_TRUE(is_policy_hash(j["hash"].get<std::string>())) << j["hash"];
}

TEST_F(PolicyCli, ShowJsonKeepsTheCanonicalKeyOrder) {
  auto r = corral({"policy", "show", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::ordered_json::parse(r.out);
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"workspace", "filesystem", "network", "env", "limits",
                                            "process", "hash"}));
}

TEST_F(PolicyCli, ShowHashIsStableAndFollowsThePolicy) {
  auto a = show_json()["hash"];
  EXPECT_EQ(show_json()["hash"], a);
  EXPECT_NE(show_json({"--memory", "1G"})["hash"], a);
}

TEST_F(PolicyCli, ShowMergesFilesSrtSettingsAndFlags) {
  std::filesystem::create_directories(ws_.path() + "/out");
  auto r = corral({"policy", "show", "--json", "--policy", kData + "good.toml", "--srt-settings",
                   kData + "srt_settings.json", "--rw", "out", "--pids", "64", "--env", "X=1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["network"]["mode"], "allowlist");
  EXPECT_EQ(j["network"]["allow"],
            nlohmann::json::array({"*.github.com:443", "*.npmjs.org", "pypi.org"}));
  EXPECT_EQ(j["limits"]["memory_bytes"], 2147483648ULL);
  EXPECT_EQ(j["limits"]["pids"], 64);
  EXPECT_EQ(j["limits"]["cpus"], 1.5);
  EXPECT_EQ(j["limits"]["timeout_ms"], 600000);
  EXPECT_EQ(j["env"]["set"], (nlohmann::json{{"CI", "1"}, {"X", "1"}}));
  auto writable = j["filesystem"]["write_allow"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(writable.begin(), writable.end(), ws_real_ + "/out"), writable.end());
  EXPECT_NE(std::find(writable.begin(), writable.end(), home_real_ + "/.cache/pip"),
            writable.end());
  // The srt keys corral cannot honour are reported, not dropped silently.
  EXPECT_NE(r.err.find("srt: network.httpProxyPort is not supported by corral and was not "
                       "applied"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("srt: enableWeakerNestedSandbox"), std::string::npos) << r.err;
}

TEST_F(PolicyCli, ShowTextEndsWithTheHash) {
  auto r = corral({"policy", "show", "--timeout", "90s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("workspace: " + ws_real_), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("timeout: 90s"), std::string::npos) << r.out;
  const std::size_t at = r.out.rfind("\nhash: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_TRUE(is_policy_hash(r.out.substr(at + 7, 71))) << r.out;
  EXPECT_EQ(at + 7 + 71 + 1, r.out.size()) << "the hash is the last line: " << r.out;
}

TEST_F(PolicyCli, ShowRejectsBadFlagsAndFiles) {
  auto r = corral({"policy", "show", "--memory", "lots"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("corral: --memory: invalid size \"lots\"", 0), 0u) << r.err;

  r = corral({"policy", "show", "--net", "sometimes"});
  EXPECT_EQ(r.exit_code, 2);

  r = corral({"policy", "show", "--policy", kData + "bad_size.toml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad_size.toml:3: limits.memory:"), std::string::npos) << r.err;

  r = corral({"policy", "show", "--workspace", ws_.path() + "/missing"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("workspace"), std::string::npos) << r.err;

  r = corral({"policy", "show", "--rw", "not-there"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("filesystem.write_allow"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(ws_real_ + "/not-there"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace corral::test
