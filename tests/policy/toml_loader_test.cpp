// Tests of the TOML policy loader: merging, and the file/line/key of every kind of error.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/load.hpp"
#include "policy_test_support.hpp"

namespace corral {
namespace {

using test::error_of;

Result<Policy> load(const std::string& text) {
  Policy p;
  if (auto r = merge_policy_toml(p, text, "test.toml"); !r) return r.error();
  return p;
}

// Asserts that loading `text` fails with invalid_input at `line` on `key`.
void expect_error(const std::string& text, int line, const std::string& key,
                  const std::string& message_part = "") {
  SCOPED_TRACE(text);
  auto r = load(text);
  Error e = error_of(r);
  EXPECT_EQ(e.code, Errc::invalid_input);
  EXPECT_EQ(e.file, "test.toml");
  EXPECT_EQ(e.line, line);
  EXPECT_EQ(e.key, key);
  if (!message_part.empty()) {
    EXPECT_NE(e.message.find(message_part), std::string::npos) << e.message;
  }
}

TEST(TomlLoader, EmptyFileChangesNothing) {
  Policy p = default_policy();
  ASSERT_TRUE(merge_policy_toml(p, "", "empty.toml").ok());
  EXPECT_EQ(p.filesystem.read_deny, default_policy().filesystem.read_deny);
  EXPECT_EQ(p.network.mode, NetMode::none);
}

TEST(TomlLoader, ReadsTheDesignDocExample) {
  const char* text = R"(
[filesystem]
read_deny   = ["~/.ssh", "/etc/shadow"]
read_allow  = ["~/.ssh/known_hosts"]
write_allow = [".", "~/.cache/pip"]
write_deny  = [".git/hooks", ".git/config"]
read_only   = ["/opt/data"]
[network]
mode  = "allowlist"
allow = ["pypi.org", "*.github.com:443"]
deny  = ["*.internal.example"]
allow_local_binding = true
[env]
pass = ["PATH", "HOME", "LC_*"]
set  = { CI = "1", EMPTY = "" }
[limits]
memory = "2GiB"
pids = 512
cpus = 1.5
timeout = "10m"
output = "64MiB"
)";
  auto r = load(text);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  const Policy& p = *r;
  EXPECT_EQ(p.filesystem.read_deny, (std::vector<std::string>{"~/.ssh", "/etc/shadow"}));
  EXPECT_EQ(p.filesystem.read_allow, (std::vector<std::string>{"~/.ssh/known_hosts"}));
  EXPECT_EQ(p.filesystem.write_allow, (std::vector<std::string>{".", "~/.cache/pip"}));
  EXPECT_EQ(p.filesystem.write_deny, (std::vector<std::string>{".git/hooks", ".git/config"}));
  EXPECT_EQ(p.filesystem.read_only, (std::vector<std::string>{"/opt/data"}));
  EXPECT_EQ(p.network.mode, NetMode::allowlist);
  EXPECT_EQ(p.network.allow, (std::vector<std::string>{"pypi.org", "*.github.com:443"}));
  EXPECT_EQ(p.network.deny, (std::vector<std::string>{"*.internal.example"}));
  EXPECT_TRUE(p.network.allow_local_binding);
  EXPECT_EQ(p.env.pass, (std::vector<std::string>{"PATH", "HOME", "LC_*"}));
  EXPECT_EQ(p.env.set, (std::map<std::string, std::string>{{"CI", "1"}, {"EMPTY", ""}}));
  EXPECT_EQ(p.limits.memory_bytes, 2ULL << 30);
  EXPECT_EQ(p.limits.pids, 512u);
  EXPECT_DOUBLE_EQ(*p.limits.cpus, 1.5);
  EXPECT_EQ(p.limits.timeout, std::chrono::minutes(10));
  EXPECT_EQ(p.limits.output_bytes, 64ULL << 20);
}

TEST(TomlLoader, ProcessTable) {
  auto r = load("[process]\nseccomp = \"strict\"\nallow_nested_userns = true\n");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->process.seccomp, "strict");
  EXPECT_TRUE(r->process.allow_nested_userns);
  auto d = load("");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->process.seccomp, "default");
  EXPECT_FALSE(d->process.allow_nested_userns);
}

TEST(TomlLoader, WatchReadsIsABooleanOfTheFilesystemTable) {
  auto p = load("[filesystem]\nwatch_reads = true\n");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_TRUE(p->filesystem.watch_reads);
  EXPECT_FALSE(default_policy().filesystem.watch_reads);
  expect_error("[filesystem]\nwatch_reads = \"yes\"\n", 2, "filesystem.watch_reads", "boolean");
}

TEST(TomlLoader, ProfilePathIsRelativeToThePolicyFile) {
  Policy p;
  ASSERT_TRUE(merge_policy_toml(p, "[process]\nseccomp = \"prof.toml\"\n", "/etc/corral/p.toml")
                  .ok());
  EXPECT_EQ(p.process.seccomp, "/etc/corral/prof.toml");
  ASSERT_TRUE(merge_policy_toml(p, "[process]\nseccomp = \"/abs/x.toml\"\n", "/etc/p.toml").ok());
  EXPECT_EQ(p.process.seccomp, "/abs/x.toml");
  ASSERT_TRUE(merge_policy_toml(p, "[process]\nseccomp = \"~/x.toml\"\n", "/etc/p.toml").ok());
  EXPECT_EQ(p.process.seccomp, "~/x.toml");
}

TEST(TomlLoader, ProcessErrors) {
  expect_error("[process]\nseccomp = 1\n", 2, "process.seccomp", "expected a string");
  expect_error("[process]\nseccomp = \"\"\n", 2, "process.seccomp");
  expect_error("[process]\n\nallow_nested_userns = \"yes\"\n", 3, "process.allow_nested_userns",
               "expected a boolean");
  expect_error("[process]\nnested = true\n", 2, "process.nested", "unknown key");
  expect_error("process = 1\n", 1, "process", "expected a table");
}

TEST(SeccompProfileToml, BaseAndBlock) {
  auto r = parse_seccomp_profile_toml(
      "base = \"strict\"\nblock = [\"getcwd\", \"chdir\"]\n", "p.toml");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->base, "strict");
  EXPECT_EQ(r->block, (std::vector<std::string>{"getcwd", "chdir"}));
  auto d = parse_seccomp_profile_toml("", "p.toml");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->base, "default");
  EXPECT_TRUE(d->block.empty());
}

TEST(SeccompProfileToml, ErrorsNameFileLineAndKey) {
  struct Case {
    const char* text;
    int line;
    const char* key;
    const char* message;
  };
  for (const Case& c : {
           Case{"block = [\"getcwd\",\n  \"no_such_call\"]\n", 2, "block[1]", "unknown syscall"},
           Case{"block = [1]\n", 1, "block[0]", "expected a string"},
           Case{"block = \"getcwd\"\n", 1, "block", "expected an array"},
           Case{"base = \"lax\"\n", 1, "base", "unknown base profile"},
           Case{"\nallow = [\"x\"]\n", 2, "allow", "unknown key"},
       }) {
    SCOPED_TRACE(c.text);
    Error e = test::error_of(parse_seccomp_profile_toml(c.text, "prof.toml"));
    EXPECT_EQ(e.code, Errc::invalid_input);
    EXPECT_EQ(e.file, "prof.toml");
    EXPECT_EQ(e.line, c.line);
    EXPECT_EQ(e.key, c.key);
    EXPECT_NE(e.message.find(c.message), std::string::npos) << e.message;
  }
  Error e = test::error_of(load_seccomp_profile_file("/nonexistent/corral-profile.toml"));
  EXPECT_EQ(e.code, Errc::not_found);
  EXPECT_EQ(e.file, "/nonexistent/corral-profile.toml");
}

TEST(TomlLoader, ListsAppendAndScalarsReplace) {
  Policy p = default_policy();
  p.limits.pids = 10;
  p.env.set["KEEP"] = "k";
  p.env.set["OVER"] = "old";
  ASSERT_TRUE(merge_policy_toml(p, R"(
workspace = "/srv/ws"
[filesystem]
read_deny = ["/secret"]
[network]
mode = "all"
[env]
set = { OVER = "new" }
[limits]
pids = 20
)",
                                "a.toml")
                  .ok());
  EXPECT_EQ(p.filesystem.read_deny.size(), default_policy().filesystem.read_deny.size() + 1);
  EXPECT_EQ(p.filesystem.read_deny.back(), "/secret");
  EXPECT_EQ(p.filesystem.write_allow, default_policy().filesystem.write_allow);
  EXPECT_EQ(p.network.mode, NetMode::all);
  EXPECT_EQ(p.limits.pids, 20u);
  EXPECT_EQ(p.env.set["KEEP"], "k");
  EXPECT_EQ(p.env.set["OVER"], "new");
  EXPECT_EQ(p.workspace, "/srv/ws");
}

TEST(TomlLoader, IntegerSizesAreBytesAndIntegerCpusAreAccepted) {
  auto r = load("[limits]\nmemory = 1048576\noutput = 4096\ncpus = 2\n");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->limits.memory_bytes, 1048576u);
  EXPECT_EQ(r->limits.output_bytes, 4096u);
  EXPECT_DOUBLE_EQ(*r->limits.cpus, 2.0);
}

TEST(TomlLoader, AFailedFileLeavesThePolicyUntouched) {
  Policy p = default_policy();
  auto r = merge_policy_toml(p, "[filesystem]\nread_deny = [\"/x\"]\n[limits]\npids = 0\n", "t");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(p.filesystem.read_deny, default_policy().filesystem.read_deny);
}

TEST(TomlLoader, UnknownKeysAtEveryLevel) {
  expect_error("limit = 1\n", 1, "limit", "unknown key");
  expect_error("\n[filesystem]\nread_dney = []\n", 3, "filesystem.read_dney", "read_deny");
  expect_error("[network]\nmode = \"none\"\nproxy = 1\n", 3, "network.proxy", "unknown key");
  expect_error("[env]\npass = []\nclear = true\n", 3, "env.clear", "unknown key");
  expect_error("[limits]\n\n\nswap = \"1G\"\n", 4, "limits.swap", "expected one of");
  expect_error("[filesystem.extra]\nx = 1\n", 1, "filesystem.extra", "unknown key");
}

TEST(TomlLoader, WrongTypes) {
  expect_error("filesystem = 3\n", 1, "filesystem", "expected a table, got an integer");
  expect_error("[filesystem]\nread_deny = \"~/.ssh\"\n", 2, "filesystem.read_deny",
               "expected an array of strings, got a string");
  expect_error("[filesystem]\nwrite_allow = [\n  \".\",\n  42,\n]\n", 4,
               "filesystem.write_allow[1]", "expected a string, got an integer");
  expect_error("[network]\nmode = 1\n", 2, "network.mode", "got an integer");
  expect_error("[network]\nallow_local_binding = \"yes\"\n", 2, "network.allow_local_binding",
               "expected a boolean");
  expect_error("[env]\nset = [\"CI=1\"]\n", 2, "env.set", "got an array");
  expect_error("[env]\nset = { CI = 1 }\n", 2, "env.set.CI", "quote");
  expect_error("[limits]\npids = \"512\"\n", 2, "limits.pids", "got a string");
  expect_error("[limits]\npids = 1.5\n", 2, "limits.pids", "got a float");
  expect_error("[limits]\ncpus = \"2\"\n", 2, "limits.cpus", "got a string");
  expect_error("[limits]\nmemory = 1.5\n", 2, "limits.memory", "got a float");
  expect_error("[limits]\ntimeout = 10\n", 2, "limits.timeout", "got an integer");
  expect_error("workspace = [\"a\"]\n", 1, "workspace", "expected a string");
}

TEST(TomlLoader, BadValues) {
  expect_error("[limits]\nmemory = \"2 GiB\"\n", 2, "limits.memory", "invalid size");
  expect_error("[limits]\nmemory = \"12XB\"\n", 2, "limits.memory", "unknown unit");
  expect_error("[limits]\nmemory = 0\n", 2, "limits.memory", "greater than zero");
  expect_error("[limits]\noutput = \"-1M\"\n", 2, "limits.output", "invalid size");
  expect_error("[limits]\ntimeout = \"10\"\n", 2, "limits.timeout", "unit");
  expect_error("[limits]\ntimeout = \"ten minutes\"\n", 2, "limits.timeout", "invalid duration");
  expect_error("[limits]\npids = 0\n", 2, "limits.pids", "at least 1");
  expect_error("[limits]\npids = -3\n", 2, "limits.pids", "at least 1");
  expect_error("[limits]\ncpus = 0.0\n", 2, "limits.cpus", "at least 0.01");
  expect_error("[limits]\ncpus = -1\n", 2, "limits.cpus", "at least 0.01");
  expect_error("[limits]\ncpus = nan\n", 2, "limits.cpus");
  expect_error("[network]\nmode = \"open\"\n", 2, "network.mode", "none, allowlist or all");
}

TEST(TomlLoader, BadGlobs) {
  expect_error("[filesystem]\nread_deny = [\"~/.ssh\", \"\", \"/x\"]\n", 2,
               "filesystem.read_deny[1]", "empty");
  expect_error("[filesystem]\nread_deny = [\"/a\", \"/b\", \"file[0-9.txt\"]\n", 2,
               "filesystem.read_deny[2]", "unbalanced '['");
  expect_error("[filesystem]\nwrite_deny = [\"src/**.env\"]\n", 2, "filesystem.write_deny[0]",
               "whole path component");
  expect_error("[filesystem]\nread_allow = [\"a\\u0000b\"]\n", 2, "filesystem.read_allow[0]",
               "NUL");
  expect_error("[filesystem]\nread_only = [\"~bob/x\"]\n", 2, "filesystem.read_only[0]", "~user");
  expect_error("workspace = \"/srv/*\"\n", 1, "workspace", "glob");
  expect_error("workspace = \"\"\n", 1, "workspace", "empty");
}

TEST(TomlLoader, BadHostPatterns) {
  expect_error("[network]\nmode = \"allowlist\"\nallow = [\"pypi.org\", \"https://x.org\"]\n", 3,
               "network.allow[1]", "URL");
  expect_error("[network]\nallow = [\"x.org/path\"]\n", 2, "network.allow[0]", "path");
  expect_error("[network]\ndeny = [\"bad host\"]\n", 2, "network.deny[0]", "whitespace");
  expect_error("[network]\ndeny = [\"a.*.org\"]\n", 2, "network.deny[0]", "\"*.\"");
  expect_error("[network]\nallow = [\"x.org:70000\"]\n", 2, "network.allow[0]", "65535");
  expect_error("[network]\nallow = [\n\n  \"*\",\n]\n", 4, "network.allow[0]", "\"*.\"");
}

TEST(TomlLoader, BadEnvNames) {
  expect_error("[env]\npass = [\"PATH\", \"BAD-NAME\"]\n", 2, "env.pass[1]", "environment");
  expect_error("[env]\nset = { \"1X\" = \"v\" }\n", 2, "env.set.1X", "environment");
  expect_error("[env]\nset = { \"LC_*\" = \"v\" }\n", 2, "env.set.LC_*", "prefix");
  expect_error("[env]\nset = { X = \"a\\u0000b\" }\n", 2, "env.set.X", "NUL");
}

TEST(TomlLoader, SyntaxErrorsCarryFileAndLine) {
  auto r = load("[filesystem]\nread_deny = [\"a\"\n\n[network]\n");
  Error e = error_of(r);
  EXPECT_EQ(e.code, Errc::invalid_input);
  EXPECT_EQ(e.file, "test.toml");
  EXPECT_GE(e.line, 2);
  EXPECT_NE(e.message.find("TOML syntax error"), std::string::npos) << e.message;

  e = error_of(load("a = 1\na = 2\n"));
  EXPECT_EQ(e.line, 2);
  e = error_of(load("\n\n[limits\n"));
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.file, "test.toml");
}

TEST(TomlLoader, DescribeFormatsFileLineKeyMessage) {
  Error e = error_of(load("[limits]\nmemory = \"lots\"\n"));
  EXPECT_EQ(e.describe().rfind("test.toml:2: limits.memory: invalid size \"lots\"", 0), 0u)
      << e.describe();
}

TEST(TomlLoaderFile, MissingFileIsNotFoundAndNamesIt) {
  test::ScratchDir dir;
  Policy p;
  Error e = error_of(merge_policy_file(p, dir.at("nope.toml")));
  EXPECT_EQ(e.code, Errc::not_found);
  EXPECT_EQ(e.file, dir.at("nope.toml"));
  EXPECT_NE(e.describe().find("nope.toml"), std::string::npos);
}

TEST(TomlLoaderFile, DirectoryIsAnIoError) {
  test::ScratchDir dir;
  Policy p;
  Error e = error_of(merge_policy_file(p, dir.path()));
  EXPECT_EQ(e.code, Errc::io_error);
  EXPECT_EQ(e.file, dir.path());
}

TEST(TomlLoaderFile, UnreadableFileIsAnIoError) {
  test::ScratchDir dir;
  std::string f = dir.write("locked.toml", "");
  chmod(f.c_str(), 0);
  // Root reads every file, so the attempt is made by a child that has become `nobody`.
  pid_t pid = fork();
  if (pid == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
    Policy p;
    auto r = merge_policy_file(p, f);
    if (r.ok()) _exit(1);
    _exit(r.error().code == Errc::io_error && r.error().file == f ? 0 : 2);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: read succeeded, 2: wrong error, 3: setuid failed";
}

TEST(TomlLoaderFile, ErrorsInAFileNameThePath) {
  test::ScratchDir dir;
  std::string f = dir.write("p.toml", "[limits]\n\ntimeout = \"soon\"\n");
  Policy p;
  Error e = error_of(merge_policy_file(p, f));
  EXPECT_EQ(e.file, f);
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.key, "limits.timeout");
}

}  // namespace
}  // namespace corral
