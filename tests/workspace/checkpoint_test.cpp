// Checkpoints, rollback and fork on hand-built layers.
#include "workspace/checkpoint.hpp"

#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "workspace/diff.hpp"
#include "layer_fixture.hpp"

namespace corral::workspace {
namespace {

using test::LayerFixture;

std::string diff_lines(const Layer& layer) {
  auto d = diff_layer(layer);
  EXPECT_TRUE(d.ok());
  std::string out;
  if (d.ok())
    for (const auto& c : *d) out += change_to_line(c) + "\n";
  return out;
}

TEST(WorkspaceCheckpoint, RollbackRestoresExactlyIncludingDeletions) {
  LayerFixture f;
  f.write(f.lower + "/keep", "k\n");
  f.dir(f.lower + "/d");
  f.write(f.lower + "/d/x", "x\n");
  auto layer = f.make_layer();
  const std::string u = layer.upper();
  f.write(u + "/new", "one\n");
  f.whiteout(u + "/keep");
  f.dir(u + "/d");
  f.opaque(u + "/d");
  const std::string at_cp = diff_lines(layer);
  ASSERT_EQ(at_cp, "D  d/x\nD  keep\nA  new\n");

  auto info = create_checkpoint(layer, "cp1");
  ASSERT_TRUE(info.ok()) << info.error().describe();
  EXPECT_EQ(info->changes, 3u);
  EXPECT_FALSE(info->live);

  // Diverge: edit, un-delete, add.
  f.write(u + "/new", "two\n");
  ASSERT_EQ(unlink((u + "/keep").c_str()), 0);
  f.write(u + "/later", "l\n");
  ASSERT_NE(diff_lines(layer), at_cp);

  auto r = rollback_to_checkpoint(layer, "cp1");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(diff_lines(layer), at_cp);
  EXPECT_EQ(LayerFixture::read(u + "/new"), "one\n");
  EXPECT_FALSE(LayerFixture::exists(u + "/later"));
  char v[4];
  EXPECT_EQ(getxattr((u + "/d").c_str(), "user.overlay.opaque", v, sizeof v), 1);

  auto list = list_checkpoints(layer);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].tag, "cp1");
}

TEST(WorkspaceCheckpoint, BadInputGivesItsMessage) {
  LayerFixture f;
  auto layer = f.make_layer();
  auto r = rollback_to_checkpoint(layer, "nope");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::not_found);
  EXPECT_NE(r.error().message.find("no checkpoint \"nope\""), std::string::npos);

  auto bad = create_checkpoint(layer, "../escape");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::invalid_input);

  ASSERT_TRUE(create_checkpoint(layer, "twice").ok());
  auto again = create_checkpoint(layer, "twice");
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message.find("already exists"), std::string::npos);
}

TEST(WorkspaceCheckpoint, RollbackRefusesWhileMounted) {
  LayerFixture f;
  auto layer = f.make_layer();
  ASSERT_TRUE(create_checkpoint(layer, "cp").ok());
  auto held = lock_layer(layer);  // what a running sandbox holds
  ASSERT_TRUE(held.ok());
  EXPECT_TRUE(layer_in_use(layer));
  auto r = rollback_to_checkpoint(layer, "cp");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::busy);
  EXPECT_NE(r.error().message.find("running sandbox"), std::string::npos);
  auto live = create_checkpoint(layer, "live");
  ASSERT_TRUE(live.ok());
  EXPECT_TRUE(live->live);
}

TEST(WorkspaceCheckpoint, ForkDivergesIndependently) {
  LayerFixture f;
  f.write(f.lower + "/base", "b\n");
  auto layer = f.make_layer();
  f.write(layer.upper() + "/shared", "s\n");
  auto fork = fork_layer(layer, f.path("forked"));
  ASSERT_TRUE(fork.ok()) << fork.error().describe();
  EXPECT_EQ(fork->base.lower, layer.base.lower);
  EXPECT_EQ(fork->base.created_ns, layer.base.created_ns);
  EXPECT_EQ(fork->base.forked_from.value_or(""), layer.dir);
  EXPECT_EQ(diff_lines(*fork), "A  shared\n");

  f.write(layer.upper() + "/only-source", "1\n");
  f.whiteout(fork->upper() + "/base");
  EXPECT_EQ(diff_lines(layer), "A  only-source\nA  shared\n");
  EXPECT_EQ(diff_lines(*fork), "D  base\nA  shared\n");

  auto reopened = open_layer(fork->dir);
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(reopened->base.forked_from.value_or(""), layer.dir);
  EXPECT_FALSE(fork_layer(layer, f.path("forked")).ok());  // exists already
}

}  // namespace
}  // namespace corral::workspace
