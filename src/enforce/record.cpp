// Serialisation of RunRecord.
#include "enforce/record.hpp"

#include <signal.h>
#include <string.h>

namespace corral {

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
  j["duration_ms"] = r.duration_ms;
  j["cpu_ms"] = r.cpu_ms;
  j["peak_memory_bytes"] = r.peak_memory_bytes;
  j["policy_hash"] = r.policy_hash;
  auto violations = nlohmann::ordered_json::array();
  for (const auto& v : r.violations)
    violations.push_back({{"kind", v.kind}, {"time", v.time}, {"subject", v.subject},
                          {"detail", v.detail}});
  j["violations"] = violations;
  j["writes"] = r.writes;
  j["error"] = r.error ? nlohmann::ordered_json(*r.error) : nullptr;
  j["not_enforced"] = r.not_enforced;
  j["not_observed"] = r.not_observed;
  return j;
}

}  // namespace corral
