// Tests of the pattern syntax checks: hosts, path globs, environment variable names.
#include <gtest/gtest.h>

#include "policy/load.hpp"

namespace corral {
namespace {

TEST(HostPattern, AcceptsHostsSuffixesPortsAndAddresses) {
  for (const char* ok :
       {"pypi.org", "files.pythonhosted.org", "localhost", "*.github.com", "*.github.com:443",
        "example.com:1", "example.com:65535", "10.0.0.1", "10.0.0.1:8080", "[::1]", "[::1]:443",
        "[2001:db8::1]:8443", "my_host.internal", "xn--bcher-kva.example", "PyPI.ORG"})
    EXPECT_TRUE(validate_host_pattern(ok).ok())
        << ok << ": " << validate_host_pattern(ok).error().message;
}

TEST(HostPattern, RejectsSchemesPathsSpacesBadWildcardsAndPorts) {
  for (const char* bad :
       {"",
        "https://pypi.org",
        "pypi.org/simple",
        "pypi .org",
        " pypi.org",
        "pypi.org\t",
        "*",
        "*.",
        "*github.com",
        "github.*",
        "a.*.com",
        "**.github.com",
        "*.*.com",
        "example.com:0",
        "example.com:65536",
        "example.com:",
        "example.com:http",
        "example.com:443:1",
        "::1",
        "[::1",
        "[]",
        "[::1]x",
        "[::g]",
        "a..b",
        ".example.com",
        "example.com.",
        "-a.com",
        "a-.com",
        "ex!ample.com",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com"}) {
    auto r = validate_host_pattern(bad);
    EXPECT_FALSE(r.ok()) << "accepted \"" << bad << "\"";
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, Errc::invalid_input);
    }
  }
}

TEST(HostPattern, MessagesSayWhatIsWrong) {
  EXPECT_NE(validate_host_pattern("https://x.org").error().message.find("URL"), std::string::npos);
  EXPECT_NE(validate_host_pattern("x.org/a").error().message.find("path"), std::string::npos);
  EXPECT_NE(validate_host_pattern("a.*.org").error().message.find("\"*.\""), std::string::npos);
  EXPECT_NE(validate_host_pattern("x.org:99999").error().message.find("1 to 65535"),
            std::string::npos);
}

TEST(PathPattern, AcceptsPathsAndGlobs) {
  for (const char* ok : {"/etc/shadow", "~", "~/.ssh", ".", "..", ".git/hooks", "a b/c",
                         "/etc/ssh/ssh_host_*_key", "src/**/.env", "**", "/a/**", "**/x",
                         "file[0-9].txt", "[!a]*", "[]]", "[^x]", "lit\\[eral", "a]b", "~/x/**/y"})
    EXPECT_TRUE(validate_path_pattern(ok).ok())
        << ok << ": " << validate_path_pattern(ok).error().message;
}

TEST(PathPattern, RejectsEmptyNulUnbalancedBracketsAndPartialGlobstar) {
  const std::string with_nul("a\0b", 3);
  for (const std::string& bad :
       {std::string(""), with_nul, std::string("file[0-9.txt"), std::string("["), std::string("[]"),
        std::string("a[b/c]"), std::string("src/**.env"), std::string("a**/b"),
        std::string("/x/***"), std::string("~user/x"), std::string("trailing\\")}) {
    auto r = validate_path_pattern(bad);
    EXPECT_FALSE(r.ok()) << "accepted \"" << bad << "\"";
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, Errc::invalid_input);
    }
  }
}

TEST(PathPattern, GlobDetection) {
  EXPECT_FALSE(is_glob_pattern("/etc/shadow"));
  EXPECT_FALSE(is_glob_pattern("~/.ssh"));
  EXPECT_TRUE(is_glob_pattern("/etc/ssh/ssh_host_*_key"));
  EXPECT_TRUE(is_glob_pattern("a?"));
  EXPECT_TRUE(is_glob_pattern("[ab]"));
  EXPECT_TRUE(is_glob_pattern("a\\b"));
}

TEST(EnvName, AcceptsNamesAndPrefixes) {
  for (const char* ok : {"PATH", "_X", "lower", "A1", "LC_*", "CORRAL*", "_*"})
    EXPECT_TRUE(validate_env_name(ok).ok()) << ok;
  for (const char* bad : {"", "*", "1A", "A-B", "A B", "A=B", "LC_**", "*X", "A*B", "É"})
    EXPECT_FALSE(validate_env_name(bad).ok()) << bad;
}

}  // namespace
}  // namespace corral
