#include "enforce/landlock_denials.hpp"

#include <gtest/gtest.h>

#include "enforce/violations.hpp"

namespace corral {
namespace {

audit::Record rec(int type, const std::string& serial, const std::string& body) {
  return audit::Record{type, serial, body};
}

TEST(LandlockDenials, KeepsOnlyTheRunsDomainAndNamesTheCall) {
  LandlockDenials d(2448);
  // As the kernel logs them: the first denial of a domain comes before the record naming the
  // domain's creator, then the event's SYSCALL record.
  d.add(rec(1423, "100.5:3", "domain=aa blockers=fs.make_reg path=\"/proc/2\" dev=\"proc\" ino=1"));
  d.add(rec(1424, "100.5:3", "domain=aa status=allocated mode=enforcing pid=2448 uid=0 "
                             "exe=\"/usr/bin/corral\" comm=\"corral\""));
  d.add(rec(1423, "100.5:3", "domain=aa blockers=fs.write_file path=\"/proc/2/comm\" ino=2"));
  d.add(rec(1300, "100.5:3", "arch=c000003e syscall=257 success=no exit=-13 comm=\"sh\""));
  // Another sandbox on the host.
  d.add(rec(1423, "101.0:4", "domain=bb blockers=fs.write_file path=\"/etc/x\""));
  d.add(rec(1424, "101.0:4", "domain=bb status=allocated mode=enforcing pid=999"));
  d.add(rec(1423, "101.0:5", "domain=bb blockers=fs.write_file path=\"/etc/y\""));
  // Later denials of ours; a scope refusal has no path.
  d.add(rec(1423, "102.0:6", "domain=aa blockers=scope.signal opid=1 ocomm=\"init\""));
  d.add(rec(1424, "103.0:7", "domain=aa status=deallocated denials=3"));

  auto v = d.violations();
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].kind, "landlock");
  EXPECT_EQ(v[0].subject, "/proc/2");
  EXPECT_EQ(v[0].detail, "fs.make_reg refused by Landlock (EACCES) in openat by sh");
  EXPECT_EQ(v[1].subject, "/proc/2/comm");
  EXPECT_EQ(v[1].detail, "fs.write_file refused by Landlock (EACCES) in openat by sh");
  EXPECT_EQ(v[2].subject, "opid=1 ocomm=\"init\"");
  EXPECT_EQ(v[2].detail, "scope.signal refused by Landlock (EACCES)");
  EXPECT_EQ(v[0].time.substr(0, 4), "1970");
}

TEST(LandlockDenials, RecordsOfAnUnnamedDomainAreNotOurs) {
  LandlockDenials d(1);
  d.add(rec(1423, "1.0:1", "domain=cc blockers=fs.write_file path=\"/x\""));
  EXPECT_TRUE(d.violations().empty());
}

TEST(LandlockDenials, AFloodIsCappedAndCounted) {
  LandlockDenials d(7);
  d.add(rec(1424, "1.0:1", "domain=aa status=allocated mode=enforcing pid=7"));
  for (std::size_t i = 0; i < kMaxTrappedViolations + 5; ++i)
    d.add(rec(1423, "1.0:" + std::to_string(i + 2), "domain=aa blockers=fs.write_file path=\"/p\""));
  auto v = d.violations();
  ASSERT_EQ(v.size(), kMaxTrappedViolations + 1);
  EXPECT_EQ(v.back().kind, "truncated");
  EXPECT_NE(v.back().detail.find("5 more Landlock denials"), std::string::npos);
}

}  // namespace
}  // namespace corral
