// Background jobs (exec -d): their record logs/ID.json, written by the supervisor and read by
// `ps` / `logs` on the host, and their output logs/ID.out, ID.err (older parts in *.old).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"

namespace corral::sandbox {

struct Job {
  std::string id;
  int pid = 0;                      // inside the sandbox
  std::vector<std::string> argv;
  std::string state = "running";    // running | exited | killed (the sandbox stopped)
  std::optional<int> exit_code;     // 128+N when killed by signal N
  std::string started_at, ended_at;
  std::uint64_t dropped_stdout = 0, dropped_stderr = 0;  // bytes no longer kept (log limit)
  // limits.output_bytes: the job wrote more (stdout and stderr together), so its output was cut
  // there and its whole tree killed.
  bool output_limit_reached = false;
};

nlohmann::json job_to_json(const Job& j);
Result<Job> job_from_json(const nlohmann::json& j);

// Every job of the sandbox whose logs directory is `logs_dir`, oldest first.
std::vector<Job> list_jobs(const std::string& logs_dir);
Result<Job> load_job(const std::string& logs_dir, const std::string& id);
// Marks jobs still `running` as `killed` (after stop, or when the supervisor died).
void mark_jobs_killed(const std::string& logs_dir);

// Job ids are 8 hex digits: checked before they become file names.
bool valid_job_id(const std::string& id);

}  // namespace corral::sandbox
