// The sandbox library API in-process (seed 000's shape): create, a captured exec with a typed
// result, the preflight and its typed errors, stop (release) and remove (destroy).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include "integration/cli_support.hpp"
#include "policy/load.hpp"
#include "sandbox/api.hpp"

namespace corral::test {
namespace {

class SandboxLibrary : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = getenv("CORRAL_HOME");
    saved_ = old ? old : "";
    had_ = old != nullptr;
    setenv("CORRAL_HOME", state_.path().c_str(), 1);
  }
  void TearDown() override {
    (void)sandbox::remove("lib", true);
    if (had_) setenv("CORRAL_HOME", saved_.c_str(), 1);
    else unsetenv("CORRAL_HOME");
  }
  sandbox::CreateRequest request() {
    PolicyContext ctx;
    ctx.home = getenv("HOME") ? getenv("HOME") : "/";
    ctx.cwd = ws_.path();
    Policy p = default_policy();
    p.workspace = ws_.path();
    p.filesystem.read_only.push_back(extra_.path());
    auto eff = resolve_policy(p, ctx);
    EXPECT_TRUE(eff.ok());
    sandbox::CreateRequest req;
    req.name = "lib";
    req.policy = *eff;
    req.workspaces = {{eff->workspace, "rw"}, {extra_.path(), "ro"}};
    return req;
  }
  TempDir state_, ws_, extra_;
  std::string saved_;
  bool had_ = false;
};

TEST_F(SandboxLibrary, CreateExecCapturedPreflightStopRemove) {
  auto created = sandbox::create(request());
  ASSERT_TRUE(created.ok()) << created.error().describe();
  EXPECT_EQ(created->status, sandbox::Status::running);
  auto again = sandbox::create(request());
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, Errc::already_exists);

  sandbox::ExecOptions o;
  o.argv = {"sh", "-c", "echo out; echo err >&2; exit 3"};
  std::string live;
  auto res = sandbox::exec_captured("lib", o, [&](const char* p, size_t n) { live.append(p, n); });
  ASSERT_TRUE(res.ok()) << res.error().describe();
  EXPECT_EQ(res->exit_code, 3);
  EXPECT_EQ(res->stdout_data, "out\n");
  EXPECT_EQ(res->stderr_data, "err\n");
  EXPECT_EQ(live, "out\n");

  EXPECT_TRUE(sandbox::preflight("lib", {ws_.file("a/b"), extra_.file("run.sh")}).ok());
  auto outside = sandbox::preflight("lib", {"/opt/elsewhere/run.sh"});
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.error().code, Errc::path_not_mounted);
  EXPECT_NE(outside.error().message.find("/opt/elsewhere/run.sh"), std::string::npos);
  auto missing = sandbox::preflight("nosuch", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, Errc::not_found);
  o.required_paths = {"/opt/elsewhere/run.sh"};
  auto refused = sandbox::exec_captured("lib", o);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, Errc::path_not_mounted);

  auto stopped = sandbox::stop("lib");
  ASSERT_TRUE(stopped.ok()) << stopped.error().describe();
  o.required_paths.clear();
  auto not_running = sandbox::exec_captured("lib", o);
  ASSERT_FALSE(not_running.ok());
  EXPECT_EQ(not_running.error().code, Errc::not_running);
  ASSERT_TRUE(sandbox::remove("lib", false).ok());
  EXPECT_FALSE(path_exists(state_.path() + "/sandboxes/lib"));
}

}  // namespace
}  // namespace corral::test
