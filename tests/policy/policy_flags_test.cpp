// Tests of the shared policy flags (cli/policy_flags): parsing through CLI11, layering over
// defaults, policy files and srt settings, and errors keyed by the flag name.
#include "cli/policy_flags.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "policy_test_support.hpp"

namespace corral::cli {
namespace {

using test::error_of;
using Paths = std::vector<std::string>;

bool contains(const Paths& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

class PolicyFlagsTest : public ::testing::Test {
 protected:
  PolicyFlagsTest() {
    ctx_.home = dir_.mkdir("home");
    ctx_.cwd = dir_.mkdir("cwd");
  }

  // Parses `args` as `corral show ARGS` would and builds the effective policy.
  Result<EffectivePolicy> build(std::vector<std::string> args) {
    CLI::App app;
    PolicyFlags flags;
    add_policy_flags(&app, flags);
    std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
    app.parse(args);
    notes_.clear();
    return build_effective_policy(flags, ctx_, notes_);
  }

  test::ScratchDir dir_;
  PolicyContext ctx_;
  std::vector<std::string> notes_;
};

TEST_F(PolicyFlagsTest, NoFlagsGiveTheDefaults) {
  auto r = build({});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->workspace, ctx_.cwd);
  EXPECT_EQ(r->filesystem.write_allow, Paths{ctx_.cwd});
  EXPECT_EQ(r->network.mode, NetMode::none);
}

TEST_F(PolicyFlagsTest, PathFlagsAreRelativeToCwdAndRepeatable) {
  dir_.mkdir("cwd/out");
  dir_.mkdir("cwd/data");
  dir_.mkdir("ws");
  dir_.write("cwd/secret.txt");
  dir_.mkdir("home/.cache");
  auto r = build({"--workspace", "../ws", "--rw", "out", "--rw", "~/.cache", "--ro", "data",
                  "--ro=/", "--deny-read", "secret.txt"});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->workspace, dir_.at("ws"));
  EXPECT_EQ(r->filesystem.write_allow,
            (Paths{dir_.at("cwd/out"), dir_.at("home/.cache"), dir_.at("ws")}));
  EXPECT_EQ(r->filesystem.read_only, (Paths{"/", dir_.at("cwd/data")}));
  EXPECT_TRUE(contains(r->filesystem.read_deny, dir_.at("cwd/secret.txt")));
}

TEST_F(PolicyFlagsTest, ExtraWorkspacesAreWritableUnlessMarkedRo) {
  dir_.mkdir("repo");
  dir_.mkdir("docs");
  dir_.mkdir("out");
  dir_.mkdir("a:b");
  auto r = build({"--workspace", "../repo", "--workspace", "../docs:ro", "--workspace",
                  "../out:rw", "--workspace", "../a:b"});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->workspace, dir_.at("repo"));
  EXPECT_FALSE(r->workspace_cow);
  EXPECT_EQ(r->filesystem.read_only, Paths{dir_.at("docs")});
  EXPECT_EQ(r->filesystem.write_allow,
            (Paths{dir_.at("a:b"), dir_.at("out"), dir_.at("repo")}));
}

TEST_F(PolicyFlagsTest, CowWorkspaceIsOnlyTheFirst) {
  dir_.mkdir("repo");
  dir_.mkdir("other");
  auto r = build({"--workspace", "../repo:cow"});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->workspace, dir_.at("repo"));
  EXPECT_TRUE(r->workspace_cow);
  Error e = error_of(build({"--workspace", "../repo", "--workspace", "../other:cow"}));
  EXPECT_EQ(e.key, "--workspace");
  EXPECT_NE(e.message.find("only the first workspace"), std::string::npos) << e.message;
}

TEST_F(PolicyFlagsTest, EnvFlagsPassOrSet) {
  auto r = build(
      {"--env", "EDITOR", "--env", "CI=1", "--env", "EMPTY=", "--env", "X=a=b", "--env", "MY_*"});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_TRUE(contains(r->env.pass, "EDITOR"));
  EXPECT_TRUE(contains(r->env.pass, "MY_*"));
  EXPECT_TRUE(contains(r->env.pass, "PATH"));
  EXPECT_EQ(r->env.set,
            (std::map<std::string, std::string>{{"CI", "1"}, {"EMPTY", ""}, {"X", "a=b"}}));
}

TEST_F(PolicyFlagsTest, NetworkFlags) {
  auto r = build({"--allow-host", "PyPI.org", "--allow-host", "*.github.com:443", "--deny-host",
                  "gist.github.com", "--allow-local-binding"});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->network.mode, NetMode::allowlist);  // implied by --allow-host
  EXPECT_EQ(r->network.allow, (Paths{"*.github.com:443", "pypi.org"}));
  EXPECT_EQ(r->network.deny, Paths{"gist.github.com"});
  EXPECT_TRUE(r->network.allow_local_binding);

  r = build({"--deny-host", "example.com"});  // a deny rule alone implies allowlist too
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->network.mode, NetMode::allowlist);

  r = build({"--net", "all"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->network.mode, NetMode::all);

  // An explicit --net wins over the implication.
  Error e = error_of(build({"--net", "none", "--allow-host", "x.org"}));
  EXPECT_EQ(e.key, "network.allow");
}

TEST_F(PolicyFlagsTest, LimitFlags) {
  auto r = build({"--memory", "512MiB", "--pids", "64", "--cpus", "0.5", "--timeout", "1m30s",
                  "--output-limit", "1M"});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->limits.memory_bytes, 512ULL << 20);
  EXPECT_EQ(r->limits.pids, 64u);
  EXPECT_DOUBLE_EQ(*r->limits.cpus, 0.5);
  EXPECT_EQ(r->limits.timeout, std::chrono::seconds(90));
  EXPECT_EQ(r->limits.output_bytes, 1ULL << 20);
}

TEST_F(PolicyFlagsTest, BadFlagValuesAreKeyedByFlag) {
  const std::pair<std::vector<std::string>, const char*> cases[] = {
      {{"--memory", "lots"}, "--memory"},
      {{"--pids", "0"}, "--pids"},
      {{"--cpus", "-1"}, "--cpus"},
      {{"--timeout", "10"}, "--timeout"},
      {{"--output-limit", "1X"}, "--output-limit"},
      {{"--rw", "a[b"}, "--rw"},
      {{"--ro", ""}, "--ro"},
      {{"--deny-read", "x/**y"}, "--deny-read"},
      {{"--env", "BAD-NAME"}, "--env"},
      {{"--env", "LC_*=x"}, "--env"},
      {{"--allow-host", "http://x"}, "--allow-host"},
      {{"--deny-host", "a b"}, "--deny-host"},
      {{"--workspace", "*"}, "--workspace"},
      {{"--workspace", "ws:ro"}, "--workspace"},
  };
  for (const auto& [args, key] : cases) {
    SCOPED_TRACE(args[0] + " " + args[1]);
    Error e = error_of(build(args));
    EXPECT_EQ(e.code, Errc::invalid_input);
    EXPECT_EQ(e.key, key);
    EXPECT_TRUE(e.file.empty());
  }
}

TEST_F(PolicyFlagsTest, BadNetModeIsACommandLineError) {
  EXPECT_THROW(build({"--net", "some"}), CLI::ValidationError);
}

TEST_F(PolicyFlagsTest, LayersDefaultsFilesSrtThenFlags) {
  dir_.mkdir("cwd/extra");
  std::string first = dir_.write("a.toml", R"(
[network]
mode = "allowlist"
allow = ["a.org"]
[limits]
memory = "1G"
pids = 100
)");
  std::string second = dir_.write("b.toml", "[limits]\npids = 200\n[env]\nset = { A = \"1\" }\n");
  std::string srt = dir_.write("srt.json", R"({
    "network": {"allowedDomains": ["b.org"], "httpProxyPort": 3128},
    "filesystem": {"denyRead": [], "allowWrite": ["extra"], "denyWrite": []}
  })");
  auto r = build({"--policy", first, "--policy", second, "--srt-settings", srt, "--pids", "300",
                  "--env", "A=2"});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->network.mode, NetMode::allowlist);
  EXPECT_EQ(r->network.allow, (Paths{"a.org", "b.org"}));
  EXPECT_EQ(r->limits.memory_bytes, 1ULL << 30);  // from the first file
  EXPECT_EQ(r->limits.pids, 300u);                // the flag overrides both files
  EXPECT_EQ(r->env.set.at("A"), "2");
  EXPECT_TRUE(contains(r->filesystem.write_allow, dir_.at("cwd/extra")));
  ASSERT_EQ(notes_.size(), 1u);
  EXPECT_EQ(notes_[0], "srt: network.httpProxyPort is not supported by corral and was not applied");
}

TEST_F(PolicyFlagsTest, FileErrorsKeepFileAndLine) {
  std::string bad = dir_.write("bad.toml", "[limits]\nmemory = \"x\"\n");
  Error e = error_of(build({"--policy", bad}));
  EXPECT_EQ(e.file, bad);
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.key, "limits.memory");

  e = error_of(build({"--policy", dir_.at("missing.toml")}));
  EXPECT_EQ(e.code, Errc::not_found);
  e = error_of(build({"--srt-settings", dir_.at("missing.json")}));
  EXPECT_EQ(e.code, Errc::not_found);
}

TEST_F(PolicyFlagsTest, ProcessFlags) {
  auto d = build({});
  ASSERT_TRUE(d.ok()) << d.error().describe();
  EXPECT_EQ(d->process.seccomp, "default");
  EXPECT_EQ(d->process.seccomp_base, "default");
  EXPECT_TRUE(d->process.seccomp_block.empty());
  EXPECT_FALSE(d->process.allow_nested_userns);

  auto s = build({"--seccomp", "strict", "--allow-nested-userns"});
  ASSERT_TRUE(s.ok()) << s.error().describe();
  EXPECT_EQ(s->process.seccomp, "strict");
  EXPECT_EQ(s->process.seccomp_base, "strict");
  EXPECT_TRUE(s->process.allow_nested_userns);
}

TEST_F(PolicyFlagsTest, SeccompProfileFileIsLoadedAtResolution) {
  std::string prof =
      dir_.write("cwd/prof.toml",
                 "base = \"strict\"\nblock = [\"getcwd\", \"chdir\", \"getcwd\"]\n");
  auto r = build({"--seccomp", "prof.toml"});  // relative to the caller's cwd
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->process.seccomp, prof);
  EXPECT_EQ(r->process.seccomp_base, "strict");
  EXPECT_EQ(r->process.seccomp_block, (Paths{"chdir", "getcwd"}));

  // From a policy file: relative to that file's directory.
  dir_.write("conf/p2.toml", "block = [\"chdir\"]\n");
  std::string pol = dir_.write("conf/policy.toml", "[process]\nseccomp = \"p2.toml\"\n");
  auto f = build({"--policy", pol});
  ASSERT_TRUE(f.ok()) << f.error().describe();
  EXPECT_EQ(f->process.seccomp, dir_.at("conf/p2.toml"));
  EXPECT_EQ(f->process.seccomp_base, "default");
  EXPECT_EQ(f->process.seccomp_block, (Paths{"chdir"}));
}

TEST_F(PolicyFlagsTest, SeccompProfileErrorsNameTheProfile) {
  std::string bad = dir_.write("bad.toml", "block = [\n  \"getcwd\",\n  \"not_a_syscall\",\n]\n");
  Error e = error_of(build({"--seccomp", bad}));
  EXPECT_EQ(e.code, Errc::invalid_input);
  EXPECT_EQ(e.file, bad);
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.key, "block[1]");
  EXPECT_NE(e.message.find("not_a_syscall"), std::string::npos) << e.message;

  e = error_of(build({"--seccomp", dir_.at("missing.toml")}));
  EXPECT_EQ(e.code, Errc::not_found);
  EXPECT_EQ(e.key, "process.seccomp");
}

TEST(PolicyContextFromEnvironment, UsesHomeAndCwd) {
  auto ctx = policy_context_from_environment();
  ASSERT_TRUE(ctx.ok()) << ctx.error().describe();
  EXPECT_EQ(ctx->home[0], '/');
  EXPECT_EQ(ctx->cwd[0], '/');
}

}  // namespace
}  // namespace corral::cli
