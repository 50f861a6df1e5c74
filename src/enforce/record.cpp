// Serialisation of RunRecord.
#include "enforce/record.hpp"

#include <signal.h>
#include <string.h>

#include <cstdio>
#include <ctime>

#include "enforce/violations.hpp"

namespace corral {

std::string rfc3339(std::chrono::system_clock::time_point t) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  time_t secs = static_cast<time_t>(ms / 1000);
  tm utc;
  gmtime_r(&secs, &utc);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc);
  char out[48];
  snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms % 1000));
  return out;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "SIG" + std::to_string(sig);
}

nlohmann::ordered_json record_to_json(const RunRecord& r) {
  nlohmann::ordered_json j;
  j["id"] = r.id;
  j["argv"] = r.argv;
  j["exit_code"] = r.exit_code;
  j["signal"] = r.signal ? nlohmann::ordered_json(signal_name(*r.signal)) : nullptr;
  j["timed_out"] = r.timed_out;
  j["oom_killed"] = r.oom_killed;
  j["cancelled"] = r.cancelled;
  j["output_truncated"] = r.output_truncated;
  j["duration_ms"] = r.duration_ms;
  j["cpu_ms"] = r.cpu_ms;
  j["peak_memory_bytes"] = r.peak_memory_bytes;
  j["policy_hash"] = r.policy_hash;
  auto violations = nlohmann::ordered_json::array();
  for (const auto& v : r.violations) violations.push_back(violation_to_json(v));
  j["violations"] = violations;
  j["writes"] = r.writes;
  j["writes_exact"] = r.writes_exact;
  if (r.workspace) j["workspace"] = *r.workspace;
  j["error"] = r.error ? nlohmann::ordered_json(*r.error) : nullptr;
  j["not_enforced"] = r.not_enforced;
  j["not_observed"] = r.not_observed;
  auto allowed = nlohmann::ordered_json::object();
  for (const auto& [host, n] : r.network_allowed) allowed[host] = n;
  j["network"] = {{"allowed", allowed}};
  return j;
}

}  // namespace corral
