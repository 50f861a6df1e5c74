#include "linux/audit_log.hpp"

#include <gtest/gtest.h>

namespace corral::audit {
namespace {

TEST(AuditRecord, SplitsSerialAndBody) {
  auto r = parse_record(1423, "audit(1796069581.876:3): domain=1e2a blockers=fs.write_file\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->type, 1423);
  EXPECT_EQ(r->serial, "1796069581.876:3");
  EXPECT_EQ(r->body, "domain=1e2a blockers=fs.write_file");
  EXPECT_FALSE(parse_record(1423, "domain=1e2a"));
  EXPECT_FALSE(parse_record(1423, "audit(17960"));
}

TEST(AuditRecord, FieldsQuotedBareAndHex) {
  const std::string body =
      "domain=1e2a47eef blockers=fs.write_file path=\"/proc/2/comm\" dev=\"proc\" ino=3807444 "
      "opid=7 pid=2448 comm=2F746D702F6120622063 exe=\"/bin/x\"";
  EXPECT_EQ(field(body, "domain"), "1e2a47eef");
  EXPECT_EQ(field(body, "path", true), "/proc/2/comm");
  EXPECT_EQ(field(body, "ino"), "3807444");
  // "pid" is not the tail of "opid".
  EXPECT_EQ(field(body, "pid"), "2448");
  // Strings with spaces are logged in hex.
  EXPECT_EQ(field(body, "comm", true), "/tmp/a b c");
  EXPECT_EQ(field(body, "comm"), "2F746D702F6120622063");
  // What cannot be hex stays as it is.
  EXPECT_EQ(field("path=abc", "path", true), "abc");
  EXPECT_EQ(field("comm=zz", "comm", true), "zz");
  EXPECT_EQ(field(body, "exe", true), "/bin/x");
  EXPECT_FALSE(field(body, "missing"));
  EXPECT_FALSE(field("path=\"unterminated", "path"));
}

}  // namespace
}  // namespace corral::audit
