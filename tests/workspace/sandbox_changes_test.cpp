// workspace::layer_changes / sandbox_changes: the lower, the base HEAD and every change with the
// upper-layer file that holds it (what `corral commit` reads).
#include "workspace/sandbox_changes.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "layer_fixture.hpp"

namespace corral::test {
namespace {

TEST(WorkspaceSandboxChanges, ListsTheLowerTheBaseHeadAndEachChangesSource) {
  LayerFixture f;
  LayerFixture::write(f.lower + "/kept", "k\n");
  LayerFixture::write(f.lower + "/edited", "old\n");
  LayerFixture::write(f.lower + "/removed", "r\n");
  LayerFixture::dir(f.lower + "/.git");
  LayerFixture::dir(f.lower + "/.git/refs");
  LayerFixture::dir(f.lower + "/.git/refs/heads");
  const std::string head(40, 'a');
  LayerFixture::write(f.lower + "/.git/HEAD", "ref: refs/heads/main\n");
  LayerFixture::write(f.lower + "/.git/refs/heads/main", head + "\n");
  auto layer = f.make_layer();
  LayerFixture::write(layer.upper() + "/edited", "new\n");
  LayerFixture::write(layer.upper() + "/added", "a\n");
  LayerFixture::whiteout(layer.upper() + "/removed");

  auto got = workspace::layer_changes(layer);
  ASSERT_TRUE(got.ok()) << got.error().describe();
  EXPECT_EQ(got->lower, f.lower);
  EXPECT_EQ(got->layer_dir, layer.dir);
  ASSERT_TRUE(got->base_head.has_value());
  EXPECT_EQ(*got->base_head, head);
  ASSERT_EQ(got->changes.size(), 3u);
  EXPECT_EQ(got->changes[0].change.path, "added");
  EXPECT_EQ(got->changes[0].source, layer.upper() + "/added");
  EXPECT_EQ(got->changes[1].change.path, "edited");
  EXPECT_EQ(got->changes[1].change.kind, workspace::ChangeKind::modified);
  EXPECT_EQ(LayerFixture::read(got->changes[1].source), "new\n");
  EXPECT_EQ(got->changes[2].change.path, "removed");
  EXPECT_EQ(got->changes[2].change.kind, workspace::ChangeKind::deleted);
  EXPECT_EQ(got->changes[2].source, "");
}

TEST(WorkspaceSandboxChanges, FindsASandboxsLayerByNameAndRefusesBadNames) {
  LayerFixture f;
  const std::string home = f.path("home");
  LayerFixture::dir(home);
  setenv("CORRAL_HOME", home.c_str(), 1);
  auto missing = workspace::sandbox_changes("box");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, Errc::not_found);
  EXPECT_NE(missing.error().message.find("box"), std::string::npos);
  auto bad = workspace::sandbox_changes("../x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::invalid_input);

  LayerFixture::dir(home + "/sandboxes");
  LayerFixture::dir(home + "/sandboxes/box");
  auto layer = workspace::create_layer(home + "/sandboxes/box/workspace", f.lower);
  ASSERT_TRUE(layer.ok());
  LayerFixture::write(layer->upper() + "/x", "x\n");
  auto got = workspace::sandbox_changes("box");
  unsetenv("CORRAL_HOME");
  ASSERT_TRUE(got.ok()) << got.error().describe();
  EXPECT_EQ(got->lower, f.lower);
  EXPECT_FALSE(got->base_head.has_value());
  ASSERT_EQ(got->changes.size(), 1u);
  EXPECT_EQ(got->changes[0].source, layer->upper() + "/x");
}

}  // namespace
}  // namespace corral::test
