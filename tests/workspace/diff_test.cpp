// diff_trees() on hand-built layers: every kind of change overlayfs can leave in an upper.
#include "workspace/diff.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "layer_fixture.hpp"

namespace corral::workspace {
namespace {

using test::LayerFixture;

std::string lines(const std::vector<Change>& changes) {
  std::string out;
  for (const auto& c : changes) out += change_to_line(c) + "\n";
  return out;
}

std::vector<Change> diff_of(const Layer& layer) {
  auto d = diff_layer(layer);
  EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().describe());
  return d.ok() ? *d : std::vector<Change>{};
}

TEST(WorkspaceDiff, EmptyUpperIsNoChange) {
  LayerFixture f;
  f.write(f.lower + "/a", "a\n");
  auto layer = f.make_layer();
  EXPECT_TRUE(diff_of(layer).empty());
}

TEST(WorkspaceDiff, AddsEditsAndDeletes) {
  LayerFixture f;
  f.write(f.lower + "/edit", "old\n");
  f.write(f.lower + "/same-size", "aaaa\n");
  f.write(f.lower + "/gone", "bye\n");
  f.dir(f.lower + "/olddir");
  f.write(f.lower + "/olddir/inside", "x\n");
  f.dir(f.lower + "/sub");
  auto layer = f.make_layer();
  const std::string u = layer.upper();
  f.write(u + "/new", "hello\n");
  f.copy_up(f.lower + "/edit", u + "/edit");
  f.write(u + "/edit", "new content\n");
  f.copy_up(f.lower + "/same-size", u + "/same-size");
  f.write(u + "/same-size", "bbbb\n");
  f.whiteout(u + "/gone");
  f.whiteout(u + "/olddir");
  f.whiteout(u + "/never-existed");  // overlayfs would not make it; it is no change
  f.dir(u + "/sub");
  f.dir(u + "/sub/newdir");
  f.write(u + "/sub/newdir/file", "deep\n");

  auto changes = diff_of(layer);
  EXPECT_EQ(lines(changes),
            "M  edit\n"
            "D  gone\n"
            "A  new\n"
            "D  olddir/\n"
            "M  same-size\n"
            "A  sub/newdir/\n"
            "A  sub/newdir/file\n");
  ASSERT_EQ(changes.size(), 7u);
  EXPECT_TRUE(changes[0].content_changed);
  EXPECT_EQ(changes[0].size, 12u);
  EXPECT_EQ(changes[0].size_from.value_or(0), 4u);
  EXPECT_EQ(changes[1].type, EntryType::file);
  EXPECT_EQ(changes[1].size, 4u);
  EXPECT_EQ(changes[3].type, EntryType::dir);
  EXPECT_TRUE(changes[4].content_changed);  // same size, other bytes
  EXPECT_FALSE(changes[4].size_from);
}

TEST(WorkspaceDiff, ModeOnlyAndTouchedAreMetadataChanges) {
  LayerFixture f;
  f.write(f.lower + "/script", "#!/bin/sh\n");
  f.write(f.lower + "/touched", "t\n");
  f.write(f.lower + "/untouched", "u\n");
  f.dir(f.lower + "/d", 0755);
  auto layer = f.make_layer();
  const std::string u = layer.upper();
  f.copy_up(f.lower + "/script", u + "/script");
  ASSERT_EQ(chmod((u + "/script").c_str(), 0755), 0);
  f.copy_up(f.lower + "/touched", u + "/touched");
  timeval later[2] = {{1000, 0}, {1000, 0}};
  ASSERT_EQ(utimes((u + "/touched").c_str(), later), 0);
  f.copy_up(f.lower + "/untouched", u + "/untouched");  // copied up, nothing else: no change
  f.dir(u + "/d", 0700);

  auto changes = diff_of(layer);
  EXPECT_EQ(lines(changes),
            "M  d/ (mode 0755 -> 0700)\n"
            "M  script (mode 0644 -> 0755)\n"
            "M  touched (metadata only)\n");
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_FALSE(changes[1].content_changed);
  EXPECT_EQ(changes[1].mode_from.value_or(0), 0644u);
  EXPECT_EQ(changes[1].mode, 0755u);
}

TEST(WorkspaceDiff, OpaqueDirectoryHidesTheLowersContents) {
  LayerFixture f;
  f.dir(f.lower + "/d");
  f.write(f.lower + "/d/kept-name", "old\n");
  f.write(f.lower + "/d/dropped", "x\n");
  f.dir(f.lower + "/d/subdir");
  f.write(f.lower + "/d/subdir/deep", "y\n");
  auto layer = f.make_layer();
  const std::string u = layer.upper();
  // rm -rf d; mkdir d; echo new > d/kept-name
  f.dir(u + "/d");
  f.opaque(u + "/d");
  f.write(u + "/d/kept-name", "new!\n");

  EXPECT_EQ(lines(diff_of(layer)),
            "D  d/dropped\n"
            "M  d/kept-name\n"
            "D  d/subdir/\n");
}

TEST(WorkspaceDiff, SymlinksAndTypeChanges) {
  LayerFixture f;
  f.link("a", f.lower + "/link");
  f.link("same", f.lower + "/same-link");
  f.write(f.lower + "/was-file", "f\n");
  f.dir(f.lower + "/was-dir");
  f.write(f.lower + "/was-dir/x", "x\n");
  auto layer = f.make_layer();
  const std::string u = layer.upper();
  f.link("b", u + "/link");
  f.link("same", u + "/same-link");
  f.link("/etc/hostname", u + "/new-link");
  f.dir(u + "/was-file");
  f.opaque(u + "/was-file");
  f.write(u + "/was-file/inner", "i\n");
  f.write(u + "/was-dir", "now a file\n");

  auto changes = diff_of(layer);
  EXPECT_EQ(lines(changes),
            "M  link -> b (was a)\n"
            "A  new-link -> /etc/hostname\n"
            "D  was-dir/\n"
            "A  was-dir\n"
            "D  was-file\n"
            "A  was-file/\n"
            "A  was-file/inner\n");
  EXPECT_EQ(change_to_json(changes[0]).dump(),
            R"({"path":"link","kind":"modified","type":"symlink","size":1,"mode":"0777",)"
            R"("content_changed":true,"target":"b","target_from":"a"})");
}

TEST(WorkspaceDiff, RenameIsDeleteAndAdd) {
  LayerFixture f;
  f.write(f.lower + "/before", "content\n");
  auto layer = f.make_layer();
  f.whiteout(layer.upper() + "/before");
  f.copy_up(f.lower + "/before", layer.upper() + "/after");
  EXPECT_EQ(lines(diff_of(layer)), "A  after\nD  before\n");
}

TEST(WorkspaceDiff, StatAndJson) {
  LayerFixture f;
  f.write(f.lower + "/gone", "12345");
  auto layer = f.make_layer();
  f.whiteout(layer.upper() + "/gone");
  f.write(layer.upper() + "/new", "abc");
  auto changes = diff_of(layer);
  EXPECT_EQ(changes_stat(changes), " D gone | -5 bytes\n A new | +3 bytes\n"
                                   " 1 added, 0 modified, 1 deleted, -2 bytes\n");
  EXPECT_EQ(change_to_json(changes[1]).dump(),
            R"({"path":"new","kind":"added","type":"file","size":3,"mode":"0644"})");
}

}  // namespace
}  // namespace corral::workspace
