// stash_save / stash_pop on real repositories, checked with git itself.
#include "workspace/git_stash.hpp"

#include <gtest/gtest.h>

#include "git_test_support.hpp"

namespace corral::git {
namespace {

using test::TempRepo;

TEST(GitStash, SaveIncludesUntrackedAndPopRestoresEverything) {
  TempRepo repo;
  repo.write("README", "edited\n");
  repo.write("staged.txt", "staged\n");
  repo.git("add staged.txt");
  repo.write("untracked/u.txt", "untracked\n");
  std::string before = repo.status();

  auto id = stash_save(repo.path(), "wip", /*include_untracked=*/true);
  ASSERT_TRUE(id.ok()) << id.error().message;
  EXPECT_EQ(*id, repo.rev("stash@{0}"));
  EXPECT_EQ(repo.status(), "");
  EXPECT_NE(repo.git("stash list").find("wip"), std::string::npos);

  ASSERT_TRUE(stash_pop(repo.path(), *id).ok());
  EXPECT_EQ(repo.status(), before);  // staged stays staged, untracked stays untracked
  EXPECT_EQ(repo.read("README"), "edited\n");
  EXPECT_EQ(repo.read("untracked/u.txt"), "untracked\n");
  EXPECT_EQ(repo.git("stash list"), "");
}

TEST(GitStash, WithoutUntrackedLeavesUntrackedFiles) {
  TempRepo repo;
  repo.write("README", "edited\n");
  repo.write("u.txt", "u");
  auto id = stash_save(repo.path(), "wip", /*include_untracked=*/false);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(repo.status(), "?? u.txt\n");
}

TEST(GitStash, NothingToStashIsAnError) {
  TempRepo repo;
  auto id = stash_save(repo.path(), "wip", true);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.error().code, Errc::not_found);
  EXPECT_EQ(id.error().message, "nothing to stash in " + repo.path());
}

TEST(GitStash, PopByIdPicksThatStashEvenWhenNotNewest) {
  TempRepo repo;
  repo.write("README", "first\n");
  auto first = stash_save(repo.path(), "first", true);
  ASSERT_TRUE(first.ok());
  repo.write("other.txt", "second\n");
  auto second = stash_save(repo.path(), "second", true);
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(stash_pop(repo.path(), *first).ok());
  EXPECT_EQ(repo.read("README"), "first\n");
  EXPECT_FALSE(repo.exists("other.txt"));
  EXPECT_EQ(repo.rev("stash@{0}"), *second);
}

TEST(GitStash, PopUnknownStashNamesIt) {
  TempRepo repo;
  auto r = stash_pop(repo.path(), "0123456789012345678901234567890123456789");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "no stash 0123456789012345678901234567890123456789 in " + repo.path());
}

TEST(GitStash, ConflictingPopKeepsTheStash) {
  TempRepo repo;
  repo.write("README", "mine\n");
  auto id = stash_save(repo.path(), "wip", true);
  ASSERT_TRUE(id.ok());
  repo.write("README", "someone else's\n");  // uncommitted change in the way
  auto r = stash_pop(repo.path(), *id);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "stash " + *id + " conflicts with the working tree of " +
                                   repo.path() + "; it is kept: resolve with `git stash pop`");
  EXPECT_EQ(repo.read("README"), "someone else's\n");
  EXPECT_EQ(repo.rev("stash@{0}"), *id);
}

TEST(GitStash, PopRefusesWhenItsUntrackedFileIsInTheWay) {
  TempRepo repo;
  repo.write("README", "edited\n");
  repo.write("u.txt", "stashed\n");
  auto id = stash_save(repo.path(), "wip", true);
  ASSERT_TRUE(id.ok());
  repo.write("u.txt", "new file in the way\n");
  auto r = stash_pop(repo.path(), *id);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "stash " + *id + " conflicts with the working tree of " +
                                   repo.path() +
                                   " in u.txt; it is kept: resolve with `git stash pop`");
  EXPECT_EQ(repo.read("u.txt"), "new file in the way\n");
  EXPECT_EQ(repo.read("README"), "hello\n");  // nothing half-applied
  EXPECT_EQ(repo.rev("stash@{0}"), *id);
}

TEST(GitStash, PopNewestWhenNoIdIsGiven) {
  TempRepo repo;
  repo.write("README", "edited\n");
  ASSERT_TRUE(stash_save(repo.path(), "wip", true).ok());
  ASSERT_TRUE(stash_pop(repo.path()).ok());
  EXPECT_EQ(repo.read("README"), "edited\n");
  EXPECT_EQ(repo.git("stash list"), "");
}

}  // namespace
}  // namespace corral::git
