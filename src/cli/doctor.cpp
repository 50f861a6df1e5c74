// `corral doctor [--json]`: runs every kernel probe for real and says what works, what is degraded
// and what blocks `corral run`, each with a fix. Exit 0 when nothing blocks, 1 otherwise.
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/exit_status.hpp"
#include "cli/verbs.hpp"
#include "linux/audit_log.hpp"
#include "linux/probe.hpp"

namespace corral::cli {
namespace {

const char* severity_label(Severity s) {
  switch (s) {
    case Severity::ok:
      return "ok";
    case Severity::warning:
      return "WARN";
    case Severity::error:
      return "ERROR";
  }
  return "?";
}

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::ok:
      return "ok";
    case Severity::warning:
      return "warning";
    case Severity::error:
      return "error";
  }
  return "?";
}

// "name: detail; fix: ..." — the same strings seed 004's checkDependencies() returns.
std::string one_line(const FeatureCheck& c) {
  std::string s = c.name + ": " + c.detail;
  if (!c.fix.empty()) s += "; fix: " + c.fix;
  return s;
}

nlohmann::ordered_json features_json(const Features& f) {
  return {
      {"userns", f.userns},
      {"namespaces",
       {{"mount", f.ns_mount},
        {"pid", f.ns_pid},
        {"net", f.ns_net},
        {"ipc", f.ns_ipc},
        {"uts", f.ns_uts},
        {"cgroup", f.ns_cgroup},
        {"time", f.ns_time}}},
      {"landlock_abi", f.landlock_abi},
      {"seccomp_filter", f.seccomp_filter},
      {"seccomp_user_notif", f.seccomp_user_notif},
      {"cgroup_v2", f.cgroup_v2},
      {"cgroup_v1_controllers", f.cgroup_v1_controllers},
      {"cgroup_v2_controllers", f.cgroup_v2_controllers},
      {"overlayfs", f.overlayfs},
      {"clone3", f.clone3},
      {"pidfd", f.pidfd},
      {"mount_api", f.mount_api},
  };
}

// Whether `corral run` can record Landlock's own refusals: they are in the kernel audit log
// (ABI 7+), which only a reader with CAP_AUDIT_READ may follow, and only while audit is on.
FeatureCheck landlock_audit_check(int landlock_abi) {
  FeatureCheck c{"landlock.audit", Severity::warning, "", ""};
  if (landlock_abi < 7) {
    c.detail = "Landlock ABI " + std::to_string(landlock_abi) + " does not log its refusals";
    c.fix = "upgrade to Linux >= 6.15 (Landlock ABI 7) to have them recorded";
    return c;
  }
  auto listener = audit::Listener::open();
  if (!listener) {
    c.detail = "Landlock's own refusals are not recorded: " + listener.error().message;
    c.fix = "run corral as root to have them recorded (the record says so otherwise)";
    return c;
  }
  auto st = audit::status();
  if (!st) {
    c.detail = "Landlock's own refusals are not recorded: cannot read the audit status: " +
               st.error().message;
    c.fix = "run corral as root with CAP_AUDIT_CONTROL to have them recorded";
    return c;
  }
  if (!st->enabled) {
    c.detail = "Landlock's own refusals are not recorded: the kernel audit subsystem is off";
    c.fix = "`auditctl -e 1` (or an auditd) turns it on; corral leaves that to the host";
    return c;
  }
  c.severity = Severity::ok;
  c.detail = "Landlock's own refusals are read from the kernel audit log";
  return c;
}

int run_doctor(bool json) {
  Features f = probe_features(ProbeDepth::thorough);
  f.checks.push_back(landlock_audit_check(f.landlock_abi));
  std::vector<std::string> errors, warnings;
  for (const FeatureCheck& c : f.checks) {
    if (c.severity == Severity::error) errors.push_back(one_line(c));
    if (c.severity == Severity::warning) warnings.push_back(one_line(c));
  }
  if (json) {
    // ordered_json keeps the documented key order: verdict first, details last.
    nlohmann::ordered_json checks = nlohmann::ordered_json::array();
    for (const FeatureCheck& c : f.checks)
      checks.push_back({{"name", c.name},
                        {"status", severity_name(c.severity)},
                        {"detail", c.detail},
                        {"fix", c.fix}});
    nlohmann::ordered_json out = {{"ok", errors.empty()},
                                  {"errors", errors},
                                  {"warnings", warnings},
                                  {"checks", checks},
                                  {"features", features_json(f)}};
    fmt::print("{}\n", out.dump(2));
  } else {
    size_t width = 0;
    for (const FeatureCheck& c : f.checks) width = std::max(width, c.name.size());
    for (const FeatureCheck& c : f.checks) {
      fmt::print("{:<5}  {:<{}}  {}", severity_label(c.severity), c.name, width, c.detail);
      if (!c.fix.empty()) fmt::print("  [fix: {}]", c.fix);
      fmt::print("\n");
    }
    size_t oks = f.checks.size() - errors.size() - warnings.size();
    fmt::print("\n{} checks: {} ok, {} warning{}, {} error{}. ", f.checks.size(), oks,
               warnings.size(), warnings.size() == 1 ? "" : "s", errors.size(),
               errors.size() == 1 ? "" : "s");
    if (!errors.empty())
      fmt::print("corral run will refuse to start (exit 125) until the errors are fixed.\n");
    else if (!warnings.empty())
      fmt::print("corral run works; the warnings above are degraded protections.\n");
    else
      fmt::print("corral run can enforce every policy.\n");
  }
  std::fflush(stdout);
  return errors.empty() ? exit_status::success : exit_status::failure;
}

}  // namespace

void add_doctor_verb(CLI::App& app, VerbAction& action) {
  CLI::App* cmd = app.add_subcommand(
      "doctor", "Check the kernel features corral needs; exit 1 if corral run cannot enforce");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print one JSON object: ok, errors, warnings, checks, features");
  cmd->callback([&action, json] { action = [json] { return run_doctor(*json); }; });
}

}  // namespace corral::cli
