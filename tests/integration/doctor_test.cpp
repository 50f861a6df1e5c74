// `corral doctor` through the real binary: exit status, one line per check, and the JSON shape
// (seed 004's checkDependencies: errors and warnings as arrays of strings).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "integration/cli_support.hpp"
#include "linux/audit_log.hpp"

namespace corral::test {
namespace {

const char* const kCheckNames[] = {"userns",
                                   "ns.mount",
                                   "ns.pid",
                                   "ns.net",
                                   "ns.ipc",
                                   "ns.uts",
                                   "ns.cgroup",
                                   "ns.time",
                                   "landlock",
                                   "seccomp.filter",
                                   "seccomp.user_notif",
                                   "cgroup",
                                   "overlayfs",
                                   "clone3",
                                   "pidfd",
                                   "mount_api",
                                   "landlock.audit"};

TEST(Doctor, TextListsEveryCheckAndExitsZeroHere) {
  CliResult r = run_corral({"doctor"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* name : kCheckNames)
    EXPECT_NE(r.out.find(std::string("  ") + name + "  "), std::string::npos)
        << "missing check " << name << " in:\n"
        << r.out;
  // This machine has every hard requirement; only degraded items may be flagged.
  EXPECT_EQ(r.out.find("ERROR"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("17 checks:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 errors"), std::string::npos) << r.out;
  // Every line that is not ok carries its fix.
  size_t pos = 0;
  while ((pos = r.out.find("WARN ", pos)) != std::string::npos) {
    size_t eol = r.out.find('\n', pos);
    EXPECT_NE(r.out.substr(pos, eol - pos).find("[fix: "), std::string::npos)
        << r.out.substr(pos, eol - pos);
    pos = eol;
  }
}

TEST(Doctor, JsonHasErrorsWarningsChecksAndFeatures) {
  CliResult r = run_corral({"doctor", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j.at("ok"), true);
  ASSERT_TRUE(j.at("errors").is_array());
  ASSERT_TRUE(j.at("warnings").is_array());
  EXPECT_TRUE(j.at("errors").empty()) << j.at("errors").dump();
  for (const auto& w : j.at("warnings")) EXPECT_TRUE(w.is_string());

  ASSERT_TRUE(j.at("checks").is_array());
  ASSERT_EQ(j.at("checks").size(), std::size(kCheckNames));
  size_t i = 0;
  for (const auto& c : j.at("checks")) {
    EXPECT_EQ(c.at("name"), kCheckNames[i++]);
    std::string status = c.at("status");
    EXPECT_TRUE(status == "ok" || status == "warning" || status == "error") << status;
    EXPECT_TRUE(c.at("detail").is_string());
    EXPECT_EQ(c.at("fix").get<std::string>().empty(), status == "ok") << c.dump();
  }

  const auto& f = j.at("features");
  ASSERT_TRUE(f.at("landlock_abi").is_number_integer());
  EXPECT_GE(f.at("landlock_abi").get<int>(), 1);  // this machine: ABI 7
  EXPECT_EQ(f.at("userns"), true);
  EXPECT_EQ(f.at("namespaces").at("net"), true);
  EXPECT_EQ(f.at("seccomp_filter"), true);
  EXPECT_TRUE(f.at("cgroup_v1_controllers").is_array());
  EXPECT_TRUE(f.at("cgroup_v2_controllers").is_array());
}

// Whether Landlock's own refusals can be recorded: never for an unprivileged user (no
// CAP_AUDIT_READ); as root, while the host's audit is on.
TEST(Doctor, SaysWhetherLandlockRefusalsCanBeRecorded) {
  CliResult r = run_corral({"doctor", "--json"});
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  nlohmann::json check;
  for (const auto& c : j.at("checks"))
    if (c.at("name") == "landlock.audit") check = c;
  ASSERT_FALSE(check.is_null()) << j.at("checks").dump();
  const std::string detail = check.at("detail");
  if (unprivileged_lane()) {
    EXPECT_EQ(check.at("status"), "warning") << check.dump();
    EXPECT_NE(detail.find("needs CAP_AUDIT_READ"), std::string::npos) << detail;
    return;
  }
  auto audit_on = audit::status();
  ASSERT_TRUE(audit_on) << audit_on.error().message;
  EXPECT_EQ(check.at("status"), audit_on->enabled ? "ok" : "warning") << check.dump();
  EXPECT_NE(detail.find(audit_on->enabled ? "read from the kernel audit log"
                                          : "audit subsystem is off"),
            std::string::npos)
      << detail;
}

TEST(Doctor, RejectsUnknownFlag) {
  CliResult r = run_corral({"doctor", "--bogus"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
}

}  // namespace
}  // namespace corral::test
