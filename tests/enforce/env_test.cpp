// Unit tests of the child's environment: deny by default, pass-list, set, overlay.
#include "enforce/env.hpp"

#include <gtest/gtest.h>

namespace corral {
namespace {

std::vector<std::string> host() {
  return {"PATH=/usr/bin", "HOME=/home/u", "AWS_SECRET_ACCESS_KEY=s3cr3t", "LC_ALL=C",
          "LC_TIME=en_GB", "LANG=C.UTF-8", "SSH_AUTH_SOCK=/run/agent", "LCX=no"};
}

TEST(ChildEnv, DeniesEverythingNotPassed) {
  Policy::Env env;
  env.pass = {"PATH", "HOME", "LC_*"};
  auto out = build_child_env(env, host(), {});
  EXPECT_EQ(out, (std::vector<std::string>{"HOME=/home/u", "LC_ALL=C", "LC_TIME=en_GB",
                                           "PATH=/usr/bin"}));
}

TEST(ChildEnv, SetAndOverlayApplyInOrder) {
  Policy::Env env;
  env.pass = {"PATH"};
  env.set = {{"CI", "1"}, {"PATH", "/policy"}};
  auto out = build_child_env(env, host(), {{"PATH", "/overlay"}, {"X", "y"}});
  EXPECT_EQ(out, (std::vector<std::string>{"CI=1", "PATH=/overlay", "X=y"}));
}

TEST(ChildEnv, OverlayCannotInheritFromHost) {
  // An overlay entry is a literal value: naming a host variable does not pull its value in.
  Policy::Env env;
  auto out = build_child_env(env, host(), {{"AWS_SECRET_ACCESS_KEY", ""}});
  EXPECT_EQ(out, (std::vector<std::string>{"AWS_SECRET_ACCESS_KEY="}));
}

TEST(ChildEnv, PrefixPatternNeedsTheStar) {
  EXPECT_TRUE(env_name_matches("LC_*", "LC_ALL"));
  EXPECT_FALSE(env_name_matches("LC_*", "LCX"));
  EXPECT_FALSE(env_name_matches("PATH", "PATHX"));
  EXPECT_TRUE(env_name_matches("PATH", "PATH"));
}

}  // namespace
}  // namespace corral
