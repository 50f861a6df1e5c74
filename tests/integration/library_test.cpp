// The library API (seed 004's shape) in-process: live streams, completion, cancellation, overlay.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "enforce/run.hpp"
#include "integration/cli_support.hpp"
#include "policy/load.hpp"

namespace corral::test {
namespace {

class LibraryTest : public ::testing::Test {
 protected:
  RunRequest request(std::vector<std::string> argv) {
    PolicyContext ctx;
    ctx.home = getenv("HOME") ? getenv("HOME") : "/";
    ctx.cwd = ws_.path();
    Policy p = default_policy();
    p.workspace = ws_.path();
    auto eff = resolve_policy(p, ctx);
    EXPECT_TRUE(eff.ok()) << (eff.ok() ? "" : eff.error().describe());
    RunRequest req;
    req.policy = *eff;
    req.argv = std::move(argv);
    req.cwd = ws_.path();
    return req;
  }
  TempDir ws_;
};

TEST_F(LibraryTest, StreamsAreSeparateAndCompletionHasTheRecord) {
  auto req = request({"/bin/sh", "-c", "echo out; echo err >&2; exit 5"});
  req.id = "lib-1";
  auto res = run_and_capture(std::move(req));
  ASSERT_TRUE(res.ok()) << res.error().describe();
  EXPECT_EQ(res->stdout_data, "out\n");
  EXPECT_EQ(res->stderr_data, "err\n");
  EXPECT_EQ(res->record.exit_code, 5);  // a non-zero exit is data, not an error
  EXPECT_EQ(res->record.id, "lib-1");
}

TEST_F(LibraryTest, LiveStreamsArriveBeforeCompletion) {
  auto started = start_run(request({"/bin/sh", "-c", "echo first; sleep 0.3; echo second"}));
  ASSERT_TRUE(started.ok()) << started.error().describe();
  auto& exe = *started;
  std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>> chunks;
  Execution::WaitOptions opts;
  opts.on_stdout = [&](const char* p, size_t n) {
    chunks.emplace_back(std::string(p, n), std::chrono::steady_clock::now());
  };
  auto rec = exe->wait(opts);
  ASSERT_TRUE(rec.ok());
  ASSERT_GE(chunks.size(), 2u);
  EXPECT_EQ(chunks.front().first, "first\n");
  EXPECT_GE(chunks.back().second - chunks.front().second, std::chrono::milliseconds(200));
}

TEST_F(LibraryTest, CancelKillsTheWholeTreeAndSettles) {
  auto started = start_run(request({"/bin/sh", "-c", "setsid sleep 100 & sleep 100 & wait"}));
  ASSERT_TRUE(started.ok()) << started.error().describe();
  auto& exe = *started;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    exe->cancel();
  });
  Execution::WaitOptions opts;
  opts.on_stdout = [](const char*, size_t) {};
  auto t0 = std::chrono::steady_clock::now();
  auto rec = exe->wait(opts);  // pipes reach EOF only when every process holding them is gone
  canceller.join();
  ASSERT_TRUE(rec.ok()) << rec.error().describe();
  EXPECT_TRUE(rec->cancelled);
  EXPECT_EQ(rec->exit_code, 137);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
}

TEST_F(LibraryTest, OverlaySetsValuesButNeverWidensInheritance) {
  setenv("CORRAL_TEST_HOST_SECRET", "leak", 1);
  auto req = request({"/usr/bin/env"});
  req.env_overlay = {{"FROM_OVERLAY", "yes"}};
  auto res = run_and_capture(std::move(req));
  unsetenv("CORRAL_TEST_HOST_SECRET");
  ASSERT_TRUE(res.ok());
  EXPECT_NE(res->stdout_data.find("FROM_OVERLAY=yes"), std::string::npos);
  EXPECT_EQ(res->stdout_data.find("CORRAL_TEST_HOST_SECRET"), std::string::npos);
}

TEST_F(LibraryTest, ExecFailureIsDataWith127) {
  auto res = run_and_capture(request({"no-such-command-xyz"}));
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->record.exit_code, 127);
  ASSERT_TRUE(res->record.error.has_value());
}

TEST_F(LibraryTest, MalformedEgressPatternIsATypedError) {
  auto req = request({"/bin/true"});
  req.policy.network.mode = NetMode::allowlist;
  req.policy.network.allow = {"bad..host"};
  auto res = start_run(std::move(req));
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error().code, Errc::invalid_input);
  EXPECT_NE(res.error().message.find("bad..host"), std::string::npos) << res.error().message;
}

TEST_F(LibraryTest, AllowlistRunsHaveTheirOwnProxy) {
  auto req = request({"/bin/sh", "-c", "echo $HTTPS_PROXY"});
  req.policy.network.mode = NetMode::allowlist;
  req.policy.network.allow = {"pypi.org"};
  auto res = run_and_capture(std::move(req));
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_EQ(res->stdout_data, "http://127.0.0.1:3128\n");
  EXPECT_TRUE(res->record.network_allowed.empty());
}

}  // namespace
}  // namespace corral::test
