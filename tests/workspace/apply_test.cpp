// apply_layer(): changes reach the host; a host-side change since creation refuses all.
#include "workspace/apply.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layer_fixture.hpp"
#include "workspace/lower_head.hpp"

namespace corral::workspace {
namespace {

using test::LayerFixture;

TEST(WorkspaceApply, CopiesEveryKindOfChangeToTheHost) {
  LayerFixture f;
  f.write(f.lower + "/edit", "old\n");
  f.write(f.lower + "/script", "#!/bin/sh\n");
  f.write(f.lower + "/gone", "x\n");
  f.dir(f.lower + "/gonedir");
  f.write(f.lower + "/gonedir/y", "y\n");
  f.link("a", f.lower + "/link");
  f.write(f.lower + "/file-to-dir", "f\n");
  auto layer = f.make_layer();
  const std::string u = layer.upper();
  f.copy_up(f.lower + "/edit", u + "/edit");
  f.write(u + "/edit", "new\n");
  f.copy_up(f.lower + "/script", u + "/script");
  ASSERT_EQ(chmod((u + "/script").c_str(), 0755), 0);
  f.whiteout(u + "/gone");
  f.whiteout(u + "/gonedir");
  f.link("b", u + "/link");
  f.dir(u + "/newdir");
  f.write(u + "/newdir/file", "fresh\n", 0600);
  f.dir(u + "/file-to-dir");  // rm file-to-dir; mkdir file-to-dir; touch file-to-dir/in
  f.opaque(u + "/file-to-dir");
  f.write(u + "/file-to-dir/in", "in\n");

  auto applied = apply_layer(layer, {});
  ASSERT_TRUE(applied.ok()) << applied.error().describe();
  EXPECT_EQ(applied->size(), 10u);
  EXPECT_EQ(LayerFixture::read(f.lower + "/file-to-dir/in"), "in\n");
  EXPECT_EQ(LayerFixture::read(f.lower + "/edit"), "new\n");
  struct stat st;
  ASSERT_EQ(stat((f.lower + "/script").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  EXPECT_FALSE(LayerFixture::exists(f.lower + "/gone"));
  EXPECT_FALSE(LayerFixture::exists(f.lower + "/gonedir"));
  char target[8] = {};
  ASSERT_EQ(readlink((f.lower + "/link").c_str(), target, sizeof target), 1);
  EXPECT_EQ(target[0], 'b');
  EXPECT_EQ(LayerFixture::read(f.lower + "/newdir/file"), "fresh\n");
  ASSERT_EQ(stat((f.lower + "/newdir/file").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);

  // Applying again finds no host-side change: corral's own writes are not the host's.
  auto again = apply_layer(layer, {});
  ASSERT_TRUE(again.ok()) << again.error().describe();
}

TEST(WorkspaceApply, RefusesOverAHostSideChangeAndListsIt) {
  LayerFixture f;
  f.write(f.lower + "/both", "start\n");
  f.write(f.lower + "/sandbox-only", "start\n");
  f.dir(f.lower + "/dir");
  auto layer = f.make_layer();
  const std::string u = layer.upper();
  f.copy_up(f.lower + "/both", u + "/both");
  f.write(u + "/both", "sandbox\n");
  f.copy_up(f.lower + "/sandbox-only", u + "/sandbox-only");
  f.write(u + "/sandbox-only", "sandbox\n");
  f.whiteout(u + "/dir");
  f.copy_up(f.lower + "/both", u + "/copied-then-host-deleted");  // saw a lower file once
  // The host changes after the layer was created: the ctime moves past the creation stamp.
  usleep(20000);
  f.write(f.lower + "/both", "host edit\n");
  f.write(f.lower + "/dir/host-added", "h\n");

  auto r = apply_layer(layer, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::conflict);
  const std::string& m = r.error().message;
  EXPECT_NE(m.find(f.lower + "/both"), std::string::npos) << m;
  EXPECT_NE(m.find(f.lower + "/dir/host-added"), std::string::npos) << m;
  EXPECT_NE(m.find(f.lower + "/copied-then-host-deleted"), std::string::npos) << m;
  EXPECT_EQ(m.find(f.lower + "/sandbox-only"), std::string::npos) << m;
  // Nothing was written.
  EXPECT_EQ(LayerFixture::read(f.lower + "/sandbox-only"), "start\n");
  EXPECT_EQ(LayerFixture::read(f.lower + "/both"), "host edit\n");

  // --paths picks the paths without a conflict.
  ApplyOptions only;
  only.paths = {"sandbox-only"};
  auto ok = apply_layer(layer, only);
  ASSERT_TRUE(ok.ok()) << ok.error().describe();
  ASSERT_EQ(ok->size(), 1u);
  EXPECT_EQ(LayerFixture::read(f.lower + "/sandbox-only"), "sandbox\n");

  ApplyOptions none;
  none.paths = {"no-such-path"};
  auto nothing = apply_layer(layer, none);
  ASSERT_FALSE(nothing.ok());
  EXPECT_EQ(nothing.error().code, Errc::invalid_input);
}

TEST(WorkspaceLowerHead, ReadsLooseAndPackedRefs) {
  LayerFixture f;
  const std::string sha1(40, 'a'), sha2(40, 'b');
  EXPECT_FALSE(read_git_head(f.lower));
  LayerFixture::dir(f.lower + "/.git");
  LayerFixture::dir(f.lower + "/.git/refs");
  LayerFixture::dir(f.lower + "/.git/refs/heads");
  LayerFixture::write(f.lower + "/.git/HEAD", "ref: refs/heads/main\n");
  EXPECT_FALSE(read_git_head(f.lower));  // unborn branch
  LayerFixture::write(f.lower + "/.git/packed-refs", "# pack-refs with: peeled\n" + sha2 + " refs/heads/main\n");
  EXPECT_EQ(read_git_head(f.lower).value_or(""), sha2);
  LayerFixture::write(f.lower + "/.git/refs/heads/main", sha1 + "\n");
  EXPECT_EQ(read_git_head(f.lower).value_or(""), sha1);
  auto layer = f.make_layer();
  EXPECT_EQ(layer.base.git_head.value_or(""), sha1);
}

}  // namespace
}  // namespace corral::workspace
