// Sandbox names, the lifecycle rules and the state's JSON round trip.
#include "sandbox/state.hpp"

#include <gtest/gtest.h>

namespace corral::sandbox {
namespace {

TEST(SandboxName, AcceptsOrdinaryNames) {
  for (const char* n : {"a", "dev", "claude-skills-skillwalker", "x_1.2", "0abc"})
    EXPECT_TRUE(validate_name(n).ok()) << n;
  EXPECT_TRUE(validate_name(std::string(63, 'a')).ok());
}

TEST(SandboxName, RefusesWhatCannotBeADirectoryNameOrIsAmbiguous) {
  struct Case {
    std::string name, why;
  };
  for (const Case& c : {Case{"", "empty"}, Case{std::string(64, 'a'), "longer than 63"},
                        Case{"-x", "start with a letter"}, Case{".", "start with a letter"},
                        Case{"..", "start with a letter"}, Case{"a/b", "'/' is not allowed"},
                        Case{"a b", "' ' is not allowed"}, Case{"a\nb", "'\\n' is not allowed"}}) {
    auto r = validate_name(c.name);
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.error().code, Errc::invalid_input);
    EXPECT_NE(r.error().message.find(c.why), std::string::npos) << r.error().message;
  }
}

TEST(SandboxStateMachine, ExecNeedsRunningAndSaysHowToGetThere) {
  EXPECT_TRUE(check_can_exec("s", Status::running).ok());
  auto stopped = check_can_exec("s", Status::stopped);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().code, Errc::not_running);
  EXPECT_NE(stopped.error().message.find("corral start s"), std::string::npos);
  auto failed = check_can_exec("s", Status::failed);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("corral start s"), std::string::npos);
  EXPECT_FALSE(check_can_exec("s", Status::creating).ok());
}

TEST(SandboxStateMachine, Transitions) {
  EXPECT_TRUE(check_can_stop("s", Status::running).ok());
  EXPECT_TRUE(check_can_stop("s", Status::failed).ok());
  EXPECT_FALSE(check_can_stop("s", Status::stopped).ok());
  EXPECT_FALSE(check_can_stop("s", Status::creating).ok());
  EXPECT_TRUE(check_can_start("s", Status::stopped).ok());
  EXPECT_TRUE(check_can_start("s", Status::failed).ok());
  EXPECT_FALSE(check_can_start("s", Status::running).ok());
  EXPECT_FALSE(check_can_start("s", Status::creating).ok());
  EXPECT_TRUE(check_can_remove("s", Status::stopped, false).ok());
  EXPECT_TRUE(check_can_remove("s", Status::failed, false).ok());
  EXPECT_TRUE(check_can_remove("s", Status::creating, false).ok());
  auto running = check_can_remove("s", Status::running, false);
  ASSERT_FALSE(running.ok());
  EXPECT_NE(running.error().message.find("corral rm -f s"), std::string::npos);
  EXPECT_TRUE(check_can_remove("s", Status::running, true).ok());
  EXPECT_TRUE(check_can_update("s", Status::running).ok());
  EXPECT_TRUE(check_can_update("s", Status::stopped).ok());
  EXPECT_FALSE(check_can_update("s", Status::creating).ok());
}

TEST(SandboxStatus, NamesRoundTrip) {
  for (Status s : {Status::creating, Status::running, Status::stopped, Status::failed}) {
    auto back = parse_status(status_name(s));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, s);
  }
  EXPECT_FALSE(parse_status("paused").ok());
}

TEST(SandboxState, JsonRoundTrip) {
  State s;
  s.name = "dev";
  s.status = Status::running;
  s.policy = {{"workspace", "/w"}};
  s.policy_hash = "sha256:00";
  s.inputs = {{"cwd", "/w"}};
  s.workspaces = {{"/w", "rw"}, {"/scripts", "ro"}};
  s.home = "/root";
  s.created_at = "2026-11-30T00:00:00.000Z";
  s.started_at = "2026-11-30T00:00:01.000Z";
  s.supervisor = {1234, 987654321};
  s.egress_keeper = {1240, 987654400};
  s.creator = {99, 5};
  s.error = "";
  s.log_limit_bytes = 1 << 20;
  auto back = state_from_json(nlohmann::json::parse(state_to_json(s).dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, s);
  // A state written before egress keepers existed still loads.
  auto old = state_to_json(s);
  old.erase("egress_keeper");
  auto loaded = state_from_json(old);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->egress_keeper, ProcessIdentity{});
}

TEST(SandboxState, MalformedJsonIsAnErrorNotACrash) {
  auto r = state_from_json(nlohmann::json{{"name", "x"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::io_error);
  auto j = state_to_json(State{});
  j["state"] = "paused";
  EXPECT_FALSE(state_from_json(j).ok());
}

TEST(SandboxWorkspaces, InsideMeansEqualOrBeneathNotAPrefix) {
  std::vector<Workspace> ws{{"/repo", "rw"}, {"/opt/scripts", "ro"}};
  EXPECT_TRUE(inside_workspaces(ws, "/repo"));
  EXPECT_TRUE(inside_workspaces(ws, "/repo/a/b"));
  EXPECT_TRUE(inside_workspaces(ws, "/opt/scripts/run.sh"));
  EXPECT_FALSE(inside_workspaces(ws, "/repository"));
  EXPECT_FALSE(inside_workspaces(ws, "/opt"));
  EXPECT_FALSE(inside_workspaces(ws, "/etc/passwd"));
}

}  // namespace
}  // namespace corral::sandbox
