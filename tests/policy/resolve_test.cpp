// Tests of resolve_policy() against a scratch HOME and workspace: expansion, globs, symlinks,
// missing paths, dedupe/sort, and the errors resolution can raise.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "policy/load.hpp"
#include "policy/path_glob.hpp"
#include "policy_test_support.hpp"

namespace corral {
namespace {

using test::error_of;
using Paths = std::vector<std::string>;

bool contains(const Paths& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool exists(const std::string& p) {
  std::error_code ec;
  return std::filesystem::exists(std::filesystem::symlink_status(p, ec));
}

class ResolveTest : public ::testing::Test {
 protected:
  ResolveTest() {
    home_ = dir_.mkdir("home");
    ws_ = dir_.mkdir("ws");
    ctx_.home = home_;
    ctx_.cwd = ws_;
  }

  // An empty policy (no defaults) with just `fill` applied, resolved.
  Result<EffectivePolicy> resolve(const std::function<void(Policy&)>& fill) {
    Policy p;
    fill(p);
    return resolve_policy(p, ctx_);
  }

  test::ScratchDir dir_;
  std::string home_, ws_;
  PolicyContext ctx_;
};

TEST_F(ResolveTest, DefaultPolicyWithAScratchHome) {
  dir_.mkdir("home/.ssh");
  dir_.write("home/.aws", "[default]");
  dir_.mkdir("home/.config/gh");
  auto r = resolve_policy(default_policy(), ctx_);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  const auto& fs = r->filesystem;
  EXPECT_EQ(r->workspace, ws_);
  EXPECT_TRUE(contains(fs.read_deny, home_ + "/.ssh"));
  EXPECT_TRUE(contains(fs.read_deny, home_ + "/.aws"));
  EXPECT_TRUE(contains(fs.read_deny, home_ + "/.config/gh"));
  EXPECT_FALSE(contains(fs.read_deny, home_ + "/.kube")) << "missing paths are dropped";
  for (const char* host_path : {"/etc/shadow", "/etc/gshadow", "/run/user", "/etc/sudoers"})
    EXPECT_EQ(contains(fs.read_deny, host_path), exists(host_path)) << host_path;
  EXPECT_FALSE(contains(fs.read_deny, "/etc/ssh/ssh_config"));
  EXPECT_TRUE(std::is_sorted(fs.read_deny.begin(), fs.read_deny.end()));
  EXPECT_EQ(fs.write_allow, Paths{ws_});
  EXPECT_EQ(fs.write_deny, (Paths{ws_ + "/.bash_profile", ws_ + "/.bashrc", ws_ + "/.git/commondir", ws_ + "/.git/config",
                                  ws_ + "/.git/hooks", ws_ + "/.profile", ws_ + "/.zshrc"}));
  EXPECT_EQ(r->env.pass, (Paths{"HOME", "LANG", "LC_*", "PATH", "TERM", "TZ", "USER"}));
  EXPECT_EQ(r->network.mode, NetMode::none);
  EXPECT_FALSE(r->limits.memory_bytes || r->limits.pids || r->limits.cpus || r->limits.timeout ||
               r->limits.output_bytes);
}

TEST_F(ResolveTest, HostKeysAreDeniedByGlob) {
  // The default's /etc/ssh/ssh_host_*_key, checked against whatever this host has.
  auto r = resolve_policy(default_policy(), ctx_);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  auto keys = policy_paths::expand_glob("/etc/ssh/ssh_host_*_key");
  ASSERT_TRUE(keys.ok());
  for (const auto& k : *keys) EXPECT_TRUE(contains(r->filesystem.read_deny, k)) << k;
}

TEST_F(ResolveTest, TildeDotAndRelativePaths) {
  dir_.mkdir("home/.cache/pip");
  dir_.mkdir("ws/build");
  dir_.mkdir("ws/docs");
  dir_.write("home/.netrc");
  auto r = resolve([](Policy& p) {
    p.filesystem.write_allow = {".", "build/", "./build", "~/.cache/pip", "docs/../docs"};
    p.filesystem.read_deny = {"~/.netrc", "~"};
    p.filesystem.read_allow = {"~/.cache"};
  });
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->filesystem.write_allow,
            (Paths{home_ + "/.cache/pip", ws_, ws_ + "/build", ws_ + "/docs"}));
  EXPECT_EQ(r->filesystem.read_deny, (Paths{home_, home_ + "/.netrc"}));
}

TEST_F(ResolveTest, WorkspaceFromThePolicyIsRelativeToCwd) {
  std::string other = dir_.mkdir("other/proj");
  ctx_.cwd = dir_.path() + "/other";
  auto r = resolve([](Policy& p) {
    p.workspace = "proj";
    p.filesystem.write_allow = {"."};
  });
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->workspace, other);
  EXPECT_EQ(r->filesystem.write_allow, Paths{other});

  r = resolve([](Policy& p) { p.workspace = "~"; });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->workspace, home_);
}

TEST_F(ResolveTest, WorkspaceMustExistAndBeADirectory) {
  Error e = error_of(resolve([](Policy& p) { p.workspace = "missing"; }));
  EXPECT_EQ(e.code, Errc::not_found);
  EXPECT_EQ(e.key, "workspace");
  EXPECT_NE(e.message.find(ws_ + "/missing"), std::string::npos) << e.message;

  dir_.write("ws/file");
  e = error_of(resolve([](Policy& p) { p.workspace = "file"; }));
  EXPECT_EQ(e.code, Errc::invalid_input);
  EXPECT_EQ(e.key, "workspace");
  EXPECT_NE(e.message.find("not a directory"), std::string::npos) << e.message;
}

TEST_F(ResolveTest, MissingWriteAllowIsAnErrorNamingThePath) {
  Error e = error_of(resolve([](Policy& p) { p.filesystem.write_allow = {".", "~/.cache/pip"}; }));
  EXPECT_EQ(e.code, Errc::not_found);
  EXPECT_EQ(e.key, "filesystem.write_allow");
  EXPECT_NE(e.message.find(home_ + "/.cache/pip"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("~/.cache/pip"), std::string::npos) << e.message;
}

TEST_F(ResolveTest, MissingReadPathsAreDroppedAndWriteDenyIsKept) {
  auto r = resolve([](Policy& p) {
    p.filesystem.read_deny = {"/nonexistent/corral/x"};
    p.filesystem.read_allow = {"~/nope"};
    p.filesystem.read_only = {"/nonexistent/ro"};
    p.filesystem.write_deny = {".env", "/nonexistent/wd"};
  });
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_TRUE(r->filesystem.read_deny.empty());
  EXPECT_TRUE(r->filesystem.read_allow.empty());
  EXPECT_TRUE(r->filesystem.read_only.empty());
  EXPECT_EQ(r->filesystem.write_deny, (Paths{"/nonexistent/wd", ws_ + "/.env"}));
}

TEST_F(ResolveTest, SymlinksAreResolved) {
  std::string real = dir_.mkdir("home/real-ssh");
  std::filesystem::create_directory_symlink(real, home_ + "/.ssh");
  std::filesystem::create_symlink(dir_.at("nowhere"), home_ + "/.aws");  // dangling
  auto r = resolve([](Policy& p) { p.filesystem.read_deny = {"~/.ssh", "~/.aws"}; });
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->filesystem.read_deny, Paths{real});
}

TEST_F(ResolveTest, SymlinkedWorkspaceResolvesItsMissingChildrenToo) {
  std::string link = dir_.path() + "/ws-link";
  std::filesystem::create_directory_symlink(ws_, link);
  ctx_.cwd = link;
  auto r = resolve([](Policy& p) { p.filesystem.write_deny = {".git/hooks"}; });
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->workspace, ws_);
  EXPECT_EQ(r->filesystem.write_deny, Paths{ws_ + "/.git/hooks"});
}

TEST_F(ResolveTest, GlobsExpandAgainstTheHost) {
  dir_.write("home/keys/a.pem");
  dir_.write("home/keys/b.pem");
  dir_.write("home/keys/c.txt");
  dir_.write("home/keys/.hidden.pem");
  auto r = resolve([](Policy& p) {
    p.filesystem.read_deny = {"~/keys/*.pem", "~/keys/[c]*"};
    p.filesystem.write_deny = {"~/none-*"};  // matches nothing: dropped, not kept
  });
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->filesystem.read_deny,
            (Paths{home_ + "/keys/a.pem", home_ + "/keys/b.pem", home_ + "/keys/c.txt"}));
  EXPECT_TRUE(r->filesystem.write_deny.empty());
}

TEST_F(ResolveTest, GlobstarMatchesAnyDepthIncludingHiddenDirectories) {
  dir_.write("ws/.env");
  dir_.write("ws/a/.env");
  dir_.write("ws/a/b/c/.env");
  dir_.write("ws/.hidden/.env");
  dir_.write("ws/a/not-env");
  auto r = resolve([](Policy& p) { p.filesystem.read_deny = {"**/.env"}; });
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->filesystem.read_deny,
            (Paths{ws_ + "/.env", ws_ + "/.hidden/.env", ws_ + "/a/.env", ws_ + "/a/b/c/.env"}));

  r = resolve([](Policy& p) { p.filesystem.read_deny = {"a/**"}; });
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->filesystem.read_deny, (Paths{ws_ + "/a/.env", ws_ + "/a/b", ws_ + "/a/b/c",
                                            ws_ + "/a/b/c/.env", ws_ + "/a/not-env"}));
}

TEST_F(ResolveTest, GlobMetacharactersInHomeAreLiteral) {
  std::string odd_home = dir_.mkdir("h[1]*");
  dir_.write("h[1]*/.ssh/id");
  dir_.write("h1x/.ssh/id");  // what "h[1]*" would match as a pattern
  ctx_.home = odd_home;
  auto r = resolve([](Policy& p) { p.filesystem.read_deny = {"~/.ssh/*", "~/.ssh"}; });
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->filesystem.read_deny, (Paths{odd_home + "/.ssh", odd_home + "/.ssh/id"}));
}

TEST_F(ResolveTest, ListsAreDedupedAndSorted) {
  dir_.mkdir("ws/b");
  dir_.mkdir("ws/a");
  auto r = resolve([](Policy& p) {
    p.filesystem.read_only = {"b", "a", "./b", "b/", "a/../b"};
    p.network.mode = NetMode::allowlist;
    p.network.allow = {"PyPI.org", "b.org", "pypi.org", "A.org"};
    p.network.deny = {"X.internal", "x.internal"};
    p.env.pass = {"TERM", "PATH", "TERM"};
  });
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->filesystem.read_only, (Paths{ws_ + "/a", ws_ + "/b"}));
  EXPECT_EQ(r->network.allow, (Paths{"a.org", "b.org", "pypi.org"}));
  EXPECT_EQ(r->network.deny, Paths{"x.internal"});
  EXPECT_EQ(r->env.pass, (Paths{"PATH", "TERM"}));
}

TEST_F(ResolveTest, WritableInsideReadDeniedIsRefusedUnlessReopened) {
  dir_.mkdir("home/.aws/cache");
  Error e = error_of(resolve([](Policy& p) {
    p.filesystem.read_deny = {"~/.aws"};
    p.filesystem.write_allow = {"~/.aws/cache"};
  }));
  EXPECT_EQ(e.code, Errc::invalid_input);
  EXPECT_EQ(e.key, "filesystem.write_allow");
  EXPECT_NE(e.message.find(home_ + "/.aws"), std::string::npos) << e.message;

  auto r = resolve([](Policy& p) {
    p.filesystem.read_deny = {"~/.aws"};
    p.filesystem.read_allow = {"~/.aws/cache"};
    p.filesystem.write_allow = {"~/.aws/cache"};
  });
  EXPECT_TRUE(r.ok()) << r.error().describe();

  // The workspace itself inside a denied directory.
  ctx_.cwd = home_ + "/.aws/cache";
  e = error_of(resolve([](Policy& p) { p.filesystem.read_deny = {"~/.aws"}; }));
  EXPECT_EQ(e.key, "workspace");
}

TEST_F(ResolveTest, ValidatesBeforeResolving) {
  Error e = error_of(resolve([](Policy& p) { p.network.allow = {"pypi.org"}; }));
  EXPECT_EQ(e.code, Errc::invalid_input);
  EXPECT_EQ(e.key, "network.allow");
}

TEST_F(ResolveTest, HomeMustBeAbsolute) {
  ctx_.home = "relative/home";
  Error e = error_of(resolve_policy(default_policy(), ctx_));
  EXPECT_EQ(e.code, Errc::invalid_input);
  EXPECT_NE(e.message.find("HOME"), std::string::npos);
}

TEST_F(ResolveTest, LimitsEnvSetAndNetworkFlagsPassThrough) {
  auto r = resolve([](Policy& p) {
    p.limits.memory_bytes = 1 << 20;
    p.limits.timeout = std::chrono::seconds(3);
    p.env.set = {{"CI", "1"}};
    p.network.mode = NetMode::all;
    p.network.allow_local_binding = true;
  });
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->limits.memory_bytes, 1u << 20);
  EXPECT_EQ(r->limits.timeout, std::chrono::seconds(3));
  EXPECT_EQ(r->env.set.at("CI"), "1");
  EXPECT_EQ(r->network.mode, NetMode::all);
  EXPECT_TRUE(r->network.allow_local_binding);
}

TEST(PathGlob, TooBroadGlobstarIsAnError) {
  test::ScratchDir dir;
  for (int i = 0; i < 20; ++i) dir.mkdir("d" + std::to_string(i));
  auto r = policy_paths::expand_glob(dir.path() + "/**/x", 10);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("narrower"), std::string::npos);
  EXPECT_TRUE(policy_paths::expand_glob(dir.path() + "/**/x", 100).ok());
}

TEST(PathGlob, GlobstarDoesNotFollowSymlinkLoops) {
  test::ScratchDir dir;
  dir.write("a/x");
  std::filesystem::create_directory_symlink(dir.path(), dir.at("a/loop"));
  auto r = policy_paths::expand_glob(dir.path() + "/**/x");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, Paths{dir.at("a/x")});
}

TEST(PathGlob, Helpers) {
  using namespace policy_paths;
  EXPECT_EQ(normalize("/a/./b/../c/"), "/a/c");
  EXPECT_EQ(normalize("/"), "/");
  EXPECT_EQ(glob_escape("/a[1]*?\\"), "/a\\[1\\]\\*\\?\\\\");
  EXPECT_TRUE(is_within("/a/b", "/a"));
  EXPECT_TRUE(is_within("/a", "/a"));
  EXPECT_TRUE(is_within("/a", "/"));
  EXPECT_FALSE(is_within("/ab", "/a"));
  EXPECT_EQ(canonical_maybe_missing("/nonexistent-corral/a/b"), "/nonexistent-corral/a/b");
}

}  // namespace
}  // namespace corral
