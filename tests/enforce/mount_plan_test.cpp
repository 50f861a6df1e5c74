// Unit tests of the mount plan: which mounts, in which order, without privileges.
#include "enforce/mount_plan.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace corral {
namespace {

class MountPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/corral-plan-XXXXXX";
    root_ = mkdtemp(tmpl);
    std::filesystem::create_directories(root_ + "/ws/sub");
    std::filesystem::create_directories(root_ + "/home/.ssh");
    std::ofstream(root_ + "/home/.ssh/known_hosts") << "x";
    std::ofstream(root_ + "/home/.netrc") << "secret";
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  EffectivePolicy base() {
    EffectivePolicy p;
    p.workspace = root_ + "/ws";
    p.filesystem.write_allow = {p.workspace};
    return p;
  }

  static std::vector<std::string> describe(const MountPlan& plan) {
    std::vector<std::string> out;
    for (const auto& op : plan.ops) out.push_back(std::string(mount_op_kind_name(op.kind)) + " " + op.target);
    return out;
  }

  static long index_of(const MountPlan& plan, MountOpKind kind, const std::string& target) {
    for (size_t i = 0; i < plan.ops.size(); ++i)
      if (plan.ops[i].kind == kind && plan.ops[i].target == target) return static_cast<long>(i);
    return -1;
  }

  std::string root_;
};

TEST_F(MountPlanTest, BaseViewComesFirstInFixedOrder) {
  MountPlan plan = build_mount_plan(base(), {});
  auto d = describe(plan);
  ASSERT_GE(d.size(), 5u);
  EXPECT_EQ(d[0], "root-readonly /");
  EXPECT_EQ(d[1], "tmpfs /tmp");
  EXPECT_EQ(d[2], "proc /proc");
  EXPECT_EQ(plan.ops[1].mode, 01777u);
  EXPECT_GE(index_of(plan, MountOpKind::sysfs, "/sys"), 0);
  EXPECT_GE(index_of(plan, MountOpKind::dev, "/dev"), 0);
  EXPECT_GE(index_of(plan, MountOpKind::readonly_self, "/proc/sys"), 0);
  // The workspace is mounted after every base mount, so /tmp cannot hide a workspace under it.
  long ws = index_of(plan, MountOpKind::bind_rw, root_ + "/ws");
  ASSERT_GE(ws, 0);
  EXPECT_GT(ws, index_of(plan, MountOpKind::tmpfs, "/tmp"));
  EXPECT_EQ(plan.ops[static_cast<size_t>(ws)].reason, "workspace");
}

TEST_F(MountPlanTest, HostNetworkKeepsHostSysfsReadOnly) {
  MountPlan plan = build_mount_plan(base(), MountPlanOptions{false});
  EXPECT_EQ(index_of(plan, MountOpKind::sysfs, "/sys"), -1);
}

// corral's state directory is masked in every sandbox; a path the policy mounts inside it
// leaves the mask traverse-only (that path reachable, the rest hidden), never unmasked.
TEST_F(MountPlanTest, TheStateDirectoryStaysMaskedAroundPolicyMountsInsideIt) {
  const std::string state = root_ + "/home/state";
  std::filesystem::create_directories(state + "/cache");
  MountPlanOptions o;
  o.hide_state = state;
  long alone = index_of(build_mount_plan(base(), o), MountOpKind::deny_dir, state);
  ASSERT_GE(alone, 0);
  EXPECT_EQ(build_mount_plan(base(), o).ops[static_cast<size_t>(alone)].mode, 0u);

  EffectivePolicy p = base();
  p.filesystem.read_only = {state + "/cache"};
  MountPlan plan = build_mount_plan(p, o);
  long mask = index_of(plan, MountOpKind::deny_dir, state);
  ASSERT_GE(mask, 0);
  EXPECT_EQ(plan.ops[static_cast<size_t>(mask)].mode, 0111u);
  EXPECT_GT(index_of(plan, MountOpKind::bind_ro, state + "/cache"), mask);
}

TEST_F(MountPlanTest, DeniedDirectoryAndFile) {
  EffectivePolicy p = base();
  p.filesystem.read_deny = {root_ + "/home/.ssh", root_ + "/home/.netrc"};
  MountPlan plan = build_mount_plan(p, {});
  long dir = index_of(plan, MountOpKind::deny_dir, root_ + "/home/.ssh");
  long file = index_of(plan, MountOpKind::deny_file, root_ + "/home/.netrc");
  ASSERT_GE(dir, 0);
  ASSERT_GE(file, 0);
  EXPECT_EQ(plan.ops[static_cast<size_t>(dir)].mode, 0u);
  // A denied directory's tmpfs is made read-only once everything inside it is mounted.
  auto& last = plan.remount_readonly_last;
  EXPECT_NE(std::find(last.begin(), last.end(), root_ + "/home/.ssh"), last.end());
  EXPECT_NE(std::find(last.begin(), last.end(), "/dev"), last.end());
}

TEST_F(MountPlanTest, ReadAllowReopensInsideDeniedDirectory) {
  EffectivePolicy p = base();
  p.filesystem.read_deny = {root_ + "/home/.ssh"};
  p.filesystem.read_allow = {root_ + "/home/.ssh/known_hosts"};
  MountPlan plan = build_mount_plan(p, {});
  long deny = index_of(plan, MountOpKind::deny_dir, root_ + "/home/.ssh");
  long allow = index_of(plan, MountOpKind::bind_ro, root_ + "/home/.ssh/known_hosts");
  ASSERT_GE(deny, 0);
  ASSERT_GE(allow, 0);
  EXPECT_LT(deny, allow);
  // Traversable but not listable, so the re-opened file can be reached.
  EXPECT_EQ(plan.ops[static_cast<size_t>(deny)].mode, 0111u);
  EXPECT_FALSE(plan.ops[static_cast<size_t>(allow)].is_dir);
}

TEST_F(MountPlanTest, DeeperPathsMountOnTopOfParents) {
  EffectivePolicy p = base();
  p.filesystem.read_only = {root_ + "/ws/sub"};
  p.filesystem.read_deny = {root_};
  MountPlan plan = build_mount_plan(p, {});
  long deny_parent = index_of(plan, MountOpKind::deny_dir, root_);
  long ws = index_of(plan, MountOpKind::bind_rw, root_ + "/ws");
  long sub = index_of(plan, MountOpKind::bind_ro, root_ + "/ws/sub");
  ASSERT_GE(deny_parent, 0);
  EXPECT_LT(deny_parent, ws);
  EXPECT_LT(ws, sub);
}

TEST_F(MountPlanTest, EqualPathsLetTheMostSpecificRuleWin) {
  EffectivePolicy p = base();
  std::string sub = root_ + "/ws/sub";
  p.filesystem.write_allow.push_back(sub);
  p.filesystem.read_only = {sub};
  p.filesystem.read_deny = {sub};
  MountPlan plan = build_mount_plan(p, {});
  long rw = index_of(plan, MountOpKind::bind_rw, sub);
  long ro = index_of(plan, MountOpKind::bind_ro, sub);
  long deny = index_of(plan, MountOpKind::deny_dir, sub);
  EXPECT_LT(rw, ro);
  EXPECT_LT(ro, deny);
}

}  // namespace
}  // namespace corral

namespace corral {
namespace {

TEST(MountPlanWriteDeny, ExistingPathsAreBoundReadOnlyOverTheWorkspace) {
  char tmpl[] = "/tmp/corral-plan-wd-XXXXXX";
  std::string ws = mkdtemp(tmpl);
  std::filesystem::create_directories(ws + "/.git/hooks");
  EffectivePolicy p;
  p.workspace = ws;
  p.filesystem.write_allow = {ws};
  p.filesystem.write_deny = {ws + "/.git/hooks", ws + "/.bashrc"};
  MountPlan plan = build_mount_plan(p, {});
  long rw = -1, hooks = -1;
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    if (plan.ops[i].kind == MountOpKind::bind_rw && plan.ops[i].target == ws) rw = static_cast<long>(i);
    if (plan.ops[i].kind == MountOpKind::bind_ro && plan.ops[i].target == ws + "/.git/hooks")
      hooks = static_cast<long>(i);
    EXPECT_NE(plan.ops[i].target, ws + "/.bashrc");
  }
  ASSERT_GE(rw, 0);
  EXPECT_GT(hooks, rw);
  EXPECT_EQ(unprotected_write_deny(p), std::vector<std::string>{ws + "/.bashrc"});
  std::filesystem::remove_all(ws);
}

}  // namespace
}  // namespace corral
