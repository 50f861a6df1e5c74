// Resource floods against `corral run` with limits: memory, pids (fork bomb), CPU, output,
// disk-in-/tmp, time. As root the cgroup limits hold; as a user without a writable cgroup the
// run is refused (125) with a message saying why, never run unlimited.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "integration/cli_support.hpp"
#include "linux/cgroup.hpp"

namespace corral::test {
namespace {

bool cgroups_writable() { return access("/sys/fs/cgroup/memory", W_OK) == 0 && getuid() == 0; }

struct Limited {
  CliResult result;
  nlohmann::json record;
};

Limited run_limited(const TempDir& ws, std::vector<std::string> limits, const std::string& script) {
  std::vector<std::string> args{"run", "--workspace", ws.path(), "--record", ws.file("rec.json")};
  args.insert(args.end(), limits.begin(), limits.end());
  args.insert(args.end(), {"--", "/bin/bash", "-c", script});
  Limited l;
  l.result = run_corral(args, CliOptions{ws.path()});
  l.record = nlohmann::json::parse(read_file(ws.file("rec.json")));
  return l;
}

bool has_violation(const nlohmann::json& rec, const std::string& kind, const std::string& subject) {
  for (const auto& v : rec["violations"])
    if (v["kind"] == kind && v["subject"] == subject) return true;
  return false;
}

// Without limits a run takes a cgroup only where it is free (v2, CLONE_INTO_CGROUP); the record
// says why it has none, not a reason that is not true.
TEST(Limits, ARunWithoutLimitsSaysWhyItHasNoCgroup) {
  TempDir ws;
  auto l = run_limited(ws, {}, "true");
  ASSERT_EQ(l.result.exit_code, 0) << l.result.err;
  std::string line;
  for (const auto& n : l.record["not_observed"])
    if (n.get<std::string>().rfind("cgroup accounting", 0) == 0) line = n.get<std::string>();
  auto layout = detect_cgroups();
  ASSERT_TRUE(layout) << layout.error().message;
  if (layout->version == CgroupLayout::Version::v1) {
    EXPECT_NE(line.find("a run without limits takes no cgroup on a cgroup v1 host"),
              std::string::npos)
        << l.record["not_observed"].dump();
  } else if (!line.empty()) {
    EXPECT_NE(line.find("no writable cgroup for this user"), std::string::npos) << line;
  }
}

TEST(Limits, MemoryFloodIsOomKilledAndReported) {
  TempDir ws;
  auto l = run_limited(ws, {"--memory", "64MiB"},
                       "/usr/bin/python3 -c 'x = bytearray(512 * 1024 * 1024); print(\"ESCAPED\")'");
  if (!cgroups_writable()) {
    EXPECT_EQ(l.result.exit_code, 125);
    EXPECT_NE(l.result.err.find("limits.memory"), std::string::npos) << l.result.err;
    EXPECT_NE(l.result.err.find("cgroup"), std::string::npos) << l.result.err;
    return;
  }
  EXPECT_EQ(l.result.exit_code, 137) << l.result.err;
  EXPECT_EQ(l.result.out.find("ESCAPED"), std::string::npos);
  EXPECT_EQ(l.record["oom_killed"], true);
  EXPECT_LE(l.record["peak_memory_bytes"].get<std::uint64_t>(), 64u << 20);
  EXPECT_TRUE(has_violation(l.record, "limit", "memory")) << l.record.dump();
}

TEST(Limits, DiskFloodInTmpIsBoundedByTheMemoryLimit) {
  // /tmp is a tmpfs: its pages are charged to the run's memory cgroup.
  TempDir ws;
  auto l = run_limited(ws, {"--memory", "64MiB"},
                       "dd if=/dev/zero of=/tmp/big bs=1M count=512 2>/dev/null; ls -s /tmp/big");
  if (!cgroups_writable()) {
    EXPECT_EQ(l.result.exit_code, 125);
    return;
  }
  EXPECT_NE(l.result.exit_code, 0);
  EXPECT_EQ(l.record["oom_killed"], true);
}

TEST(Limits, ForkBombHitsThePidsLimitAndTheHostStaysResponsive) {
  TempDir ws;
  auto l = run_limited(ws, {"--pids", "64", "--timeout", "3s"}, "b() { b | b & }; b; sleep 10");
  if (!cgroups_writable()) {
    EXPECT_EQ(l.result.exit_code, 125);
    EXPECT_NE(l.result.err.find("limits.pids"), std::string::npos) << l.result.err;
    return;
  }
  EXPECT_EQ(l.result.exit_code, 124) << l.result.err;
  EXPECT_TRUE(has_violation(l.record, "limit", "pids")) << l.record.dump();
  EXPECT_TRUE(has_violation(l.record, "limit", "timeout")) << l.record.dump();
  // The host can still start processes.
  EXPECT_EQ(system("/bin/true"), 0);
}

TEST(Limits, CpuQuotaThrottles) {
  TempDir ws;
  auto l = run_limited(ws, {"--cpus", "0.2"},
                       "end=$((SECONDS + 2)); while [ $SECONDS -lt $end ]; do :; done");
  if (!cgroups_writable()) {
    EXPECT_EQ(l.result.exit_code, 125);
    return;
  }
  ASSERT_EQ(l.result.exit_code, 0) << l.result.err;
  // A busy loop of ~2 s wall time gets about a fifth of a CPU: far from 100%.
  double cpu = l.record["cpu_ms"].get<double>(), wall = l.record["duration_ms"].get<double>();
  EXPECT_LT(cpu, 0.6 * wall) << "cpu " << cpu << " ms over " << wall << " ms";
}

TEST(Limits, OutputFloodIsCutKilledAndRecorded) {
  TempDir ws;
  auto l = run_limited(ws, {"--output-limit", "1MiB"}, "yes flood");
  EXPECT_EQ(l.result.exit_code, 137) << l.result.err;
  EXPECT_EQ(l.result.out.size(), 1u << 20);
  EXPECT_EQ(l.record["output_truncated"], true);
  EXPECT_TRUE(has_violation(l.record, "limit", "output"));
  EXPECT_NE(l.result.err.find("output limit of 1048576 bytes reached"), std::string::npos);
}

TEST(Limits, OutputUnderTheLimitIsUntouched) {
  TempDir ws;
  auto l = run_limited(ws, {"--output-limit", "1MiB"}, "echo out; echo err >&2");
  EXPECT_EQ(l.result.exit_code, 0);
  EXPECT_EQ(l.result.out, "out\n");
  EXPECT_EQ(l.result.err, "err\n");
  EXPECT_EQ(l.record["output_truncated"], false);
}

TEST(Limits, TimeoutIsAViolation) {
  TempDir ws;
  auto l = run_limited(ws, {"--timeout", "200ms"}, "sleep 30");
  EXPECT_EQ(l.result.exit_code, 124);
  EXPECT_EQ(l.record["timed_out"], true);
  EXPECT_TRUE(has_violation(l.record, "limit", "timeout"));
}

}  // namespace
}  // namespace corral::test
