// The mount plan of a copy-on-write workspace: the workspace's writable bind becomes an
// overlay over the host directory with the layer's upper and work dirs.
#include <gtest/gtest.h>

#include "enforce/mount_plan.hpp"

namespace corral {
namespace {

EffectivePolicy cow_policy() {
  EffectivePolicy p;
  p.workspace = "/tmp";  // exists on every machine; only paths matter here
  p.workspace_cow = true;
  p.filesystem.write_allow = {p.workspace, "/var/tmp"};
  return p;
}

const MountOp* op_at(const MountPlan& plan, const std::string& target) {
  const MountOp* found = nullptr;
  for (const auto& op : plan.ops)
    if (op.target == target) found = &op;  // the last one wins, as mounted
  return found;
}

TEST(MountPlanCow, WorkspaceBecomesAnOverlayOnTheLayer) {
  MountPlanOptions o;
  o.workspace_layer = "/state/runs/run-1/workspace";
  MountPlan plan = build_mount_plan(cow_policy(), o);
  const MountOp* ws = op_at(plan, "/tmp");
  ASSERT_NE(ws, nullptr);
  EXPECT_EQ(ws->kind, MountOpKind::overlay);
  EXPECT_EQ(ws->source, "/tmp");
  EXPECT_EQ(ws->upper, "/state/runs/run-1/workspace/upper");
  EXPECT_EQ(ws->work, "/state/runs/run-1/workspace/work");
  EXPECT_STREQ(mount_op_kind_name(ws->kind), "overlay");
  // Other writable paths stay plain binds.
  const MountOp* other = op_at(plan, "/var/tmp");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->kind, MountOpKind::bind_rw);
}

TEST(MountPlanCow, WithoutALayerTheWorkspaceStaysABind) {
  // `policy show` and callers that have no layer yet see the plain plan; start_run refuses a
  // cow policy without a layer (enforce/run.cpp).
  MountPlan plan = build_mount_plan(cow_policy(), MountPlanOptions{});
  const MountOp* ws = op_at(plan, "/tmp");
  ASSERT_NE(ws, nullptr);
  EXPECT_EQ(ws->kind, MountOpKind::bind_rw);
}

}  // namespace
}  // namespace corral
