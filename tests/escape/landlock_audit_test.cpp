// Landlock's own refusals in the run record, read from the kernel audit log. A write into
// /proc/self is refused by Landlock alone (the fresh /proc is not a read-only mount, so
// neither the mount view nor corral's monitor stops it). As root the test switches the
// kernel's audit on for its duration and back off after; ctest runs it alone (RUN_SERIAL),
// since every other run on the host would see the log too. The unprivileged lane checks that
// the record says why it cannot see these refusals.
#include <gtest/gtest.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "integration/cli_support.hpp"
#include "linux/audit_log.hpp"
#include "linux/probe.hpp"

namespace corral::test {
namespace {

// AUDIT_SET of `enabled`; true when the kernel acknowledged it.
bool set_audit_enabled(std::uint32_t enabled) {
  int sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
  if (sock < 0) return false;
  struct {
    nlmsghdr h;
    audit_status s;
  } msg{};
  msg.h.nlmsg_len = NLMSG_LENGTH(sizeof msg.s);
  msg.h.nlmsg_type = AUDIT_SET;
  msg.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  msg.s.mask = AUDIT_STATUS_ENABLED;
  msg.s.enabled = enabled;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  bool ok = sendto(sock, &msg, msg.h.nlmsg_len, 0, reinterpret_cast<sockaddr*>(&kernel),
                   sizeof kernel) >= 0;
  char buf[512];
  ssize_t n = ok ? recv(sock, buf, sizeof buf, 0) : -1;
  close(sock);
  if (n < static_cast<ssize_t>(NLMSG_LENGTH(sizeof(nlmsgerr)))) return false;
  auto* h = reinterpret_cast<nlmsghdr*>(buf);
  return h->nlmsg_type == NLMSG_ERROR && static_cast<nlmsgerr*>(NLMSG_DATA(h))->error == 0;
}

// Audit on (or off) for the scope, then as it was.
class AuditSwitch {
 public:
  explicit AuditSwitch(bool on) {
    auto st = audit::status();
    EXPECT_TRUE(static_cast<bool>(st)) << (st ? "" : st.error().message);
    was_ = st && st->enabled;
    if (was_ != on) {
      EXPECT_TRUE(set_audit_enabled(on ? 1 : 0));
    }
  }
  ~AuditSwitch() { set_audit_enabled(was_ ? 1 : 0); }

 private:
  bool was_ = false;
};

class LandlockAudit : public ::testing::Test {
 protected:
  CliResult write_proc_self() {
    return run_corral({"run", "--workspace", ws_.path(), "--record", rec_.file("r.json"), "--",
                       "/bin/sh", "-c", "printf x > /proc/self/comm && echo ESCAPED; true"},
                      CliOptions{ws_.path()});
  }
  nlohmann::json record() const { return nlohmann::json::parse(read_file(rec_.file("r.json"))); }
  bool not_observed_has(const std::string& text) const {
    const auto rec = record();  // not record()[...] in the loop: that temporary would dangle
    for (const auto& n : rec["not_observed"])
      if (n.get<std::string>().find(text) != std::string::npos) return true;
    return false;
  }
  TempDir ws_, rec_;
};

TEST_F(LandlockAudit, ARefusalOnlyLandlockMakesIsRecorded) {
  if (const int abi = probe_features().landlock_abi; abi < 7) {
    // Landlock logs its denials from ABI 7 on: the record must say so, not report none.
    auto r = write_proc_self();
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(not_observed_has(abi == 0 ? "" : "landlock denials: logging them needs Landlock ABI 7"))
        << record()["not_observed"].dump();
    return;
  }
  if (unprivileged_lane()) {
    auto r = write_proc_self();
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("ESCAPED"), std::string::npos) << r.out;
    EXPECT_TRUE(not_observed_has("landlock denials: reading the kernel audit log needs "
                                 "CAP_AUDIT_READ"))
        << record()["not_observed"].dump();
    return;
  }
  {
    AuditSwitch on(true);
    auto r = write_proc_self();
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("ESCAPED"), std::string::npos) << r.out;
    const auto rec = record();
    bool found = false;
    for (const auto& v : rec["violations"]) {
      const std::string subject = v["subject"], detail = v["detail"];
      if (v["kind"] == "landlock" && subject.size() > 5 &&
          subject.compare(subject.size() - 5, 5, "/comm") == 0 &&
          detail.find("fs.write_file refused by Landlock") != std::string::npos &&
          detail.find(" by sh") != std::string::npos)
        found = true;
    }
    EXPECT_TRUE(found) << rec["violations"].dump();
    EXPECT_FALSE(not_observed_has("landlock denials:")) << rec["not_observed"].dump();
    EXPECT_TRUE(not_observed_has("landlock denials by a domain the command stacks"));
    EXPECT_NE(r.err.find("landlock"), std::string::npos) << r.err;  // in the summary too
  }
  {
    AuditSwitch off(false);
    auto r = write_proc_self();
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto rec = record();
    for (const auto& v : rec["violations"]) EXPECT_NE(v["kind"], "landlock") << v.dump();
    EXPECT_TRUE(not_observed_has("landlock denials: the kernel audit subsystem is off"))
        << rec["not_observed"].dump();
  }
}

}  // namespace
}  // namespace corral::test
