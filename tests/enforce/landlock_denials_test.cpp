#include "enforce/landlock_denials.hpp"

#include <gtest/gtest.h>

#include "enforce/violations.hpp"

namespace corral {
namespace {

audit::Record rec(int type, const std::string& serial, const std::string& body) {
  return audit::Record{type, serial, body};
}

// The init's beacon event, as the kernel logs it: ACCESS, the domain's first record, SYSCALL.
void beacon(LandlockDenials& d, const std::string& domain, int init_pid) {
  d.add(rec(1423, "100.0:2", "domain=" + domain + " blockers=fs.write_file path=\"/proc/1/comm\""));
  d.add(rec(1424, "100.0:2", "domain=" + domain + " status=allocated mode=enforcing pid=" +
                                 std::to_string(init_pid) + " exe=\"/usr/bin/corral\""));
  d.add(rec(1300, "100.0:2", "arch=c000003e syscall=257 success=no exit=-13 ppid=1 pid=" +
                                 std::to_string(init_pid) + " comm=\"corral\""));
}

TEST(LandlockDenials, TheBeaconNamesTheDomainAndOnlyItsDenialsAreKept) {
  LandlockDenials d(2448);
  d.add(rec(1423, "99.0:1", "domain=bb blockers=fs.write_file path=\"/etc/x\""));  // before
  beacon(d, "aa", 2448);
  ASSERT_TRUE(d.identified());
  d.add(rec(1423, "101.5:3", "domain=aa blockers=fs.make_reg path=\"/proc/2\" ino=1"));
  d.add(rec(1423, "101.5:3", "domain=aa blockers=fs.write_file path=\"/proc/2/comm\" ino=2"));
  d.add(rec(1300, "101.5:3", "arch=c000003e syscall=257 success=no exit=-13 pid=2449 comm=\"sh\""));
  d.add(rec(1423, "102.0:4", "domain=bb blockers=fs.write_file path=\"/etc/y\""));  // another's
  d.add(rec(1423, "102.0:5", "domain=cc blockers=fs.write_file path=\"/w\""));  // stacked inside
  d.add(rec(1423, "103.0:6", "domain=aa blockers=scope.signal opid=1 ocomm=\"init\""));

  auto v = d.violations();
  ASSERT_EQ(v.size(), 3u);  // the beacon itself is not a violation
  EXPECT_EQ(v[0].kind, "landlock");
  EXPECT_EQ(v[0].subject, "/proc/2");
  EXPECT_EQ(v[0].detail, "fs.make_reg refused by Landlock (EACCES) in openat by sh");
  EXPECT_EQ(v[1].subject, "/proc/2/comm");
  EXPECT_EQ(v[1].detail, "fs.write_file refused by Landlock (EACCES) in openat by sh");
  EXPECT_EQ(v[2].subject, "opid=1 ocomm=\"init\"");
  EXPECT_EQ(v[2].detail, "scope.signal refused by Landlock (EACCES)");
  EXPECT_EQ(v[0].time.substr(0, 4), "1970");
}

TEST(LandlockDenials, ADomainWhoseCreatorHadTheInitsPidIsNotOurs) {
  // A process that restricted itself, exited, and left its pid to our init: its domain's first
  // record names that pid. Only the beacon counts.
  LandlockDenials d(4242);
  d.add(rec(1423, "50.0:1", "domain=old blockers=fs.write_file path=\"/host/file\""));
  d.add(rec(1424, "50.0:1", "domain=old status=allocated mode=enforcing pid=4242"));
  d.add(rec(1300, "50.0:1", "arch=c000003e syscall=257 pid=7000 comm=\"leftover\""));
  EXPECT_FALSE(d.identified());
  beacon(d, "new", 4242);
  d.add(rec(1423, "51.0:3", "domain=old blockers=fs.write_file path=\"/host/file\""));
  EXPECT_TRUE(d.identified());
  EXPECT_TRUE(d.violations().empty());
}

TEST(LandlockDenials, WithoutTheBeaconNothingIsAttributed) {
  LandlockDenials d(1);
  d.add(rec(1423, "1.0:1", "domain=cc blockers=fs.write_file path=\"/x\""));
  d.add(rec(1300, "1.0:1", "arch=c000003e syscall=257 pid=2 comm=\"x\""));
  EXPECT_FALSE(d.identified());
  EXPECT_TRUE(d.violations().empty());
}

TEST(LandlockDenials, AHostFloodBeforeTheBeaconDoesNotHideIt) {
  LandlockDenials d(9);
  for (int i = 0; i < 100000; ++i)
    d.add(rec(1423, "1.0:" + std::to_string(i), "domain=zz blockers=fs.write_file path=\"/f\""));
  beacon(d, "aa", 9);
  EXPECT_TRUE(d.identified());
}

TEST(LandlockDenials, AFloodIsCappedAndCounted) {
  LandlockDenials d(7);
  beacon(d, "aa", 7);
  for (std::size_t i = 0; i < kMaxTrappedViolations + 5; ++i)
    d.add(rec(1423, "2.0:" + std::to_string(i + 10), "domain=aa blockers=fs.write_file path=\"/p\""));
  auto v = d.violations();
  ASSERT_EQ(v.size(), kMaxTrappedViolations + 1);
  EXPECT_EQ(v.back().kind, "truncated");
  EXPECT_NE(v.back().detail.find("5 more Landlock denials"), std::string::npos);
}

TEST(LandlockDenials, NamesTheSandboxChoseStayValidText) {
  LandlockDenials d(7);
  beacon(d, "aa", 7);
  // The kernel hex-encodes odd names: any bytes can come back.
  d.add(rec(1423, "3.0:9", "domain=aa blockers=fs.write_file path=2F78FF0A"));
  auto v = d.violations();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].subject, "/x\\xFF\n");
}

}  // namespace
}  // namespace corral
