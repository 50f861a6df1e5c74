// Background job records on disk.
#include "sandbox/jobs.hpp"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/atomic_file.hpp"
#include "enforce/record.hpp"

namespace corral::sandbox {

nlohmann::json job_to_json(const Job& j) {
  nlohmann::json o;
  o["id"] = j.id;
  o["pid"] = j.pid;
  o["argv"] = j.argv;
  o["state"] = j.state;
  o["exit_code"] = j.exit_code ? nlohmann::json(*j.exit_code) : nlohmann::json(nullptr);
  o["started_at"] = j.started_at;
  o["ended_at"] = j.ended_at;
  o["dropped_stdout"] = j.dropped_stdout;
  o["dropped_stderr"] = j.dropped_stderr;
  o["output_limit_reached"] = j.output_limit_reached;
  return o;
}

Result<Job> job_from_json(const nlohmann::json& o) {
  try {
    Job j;
    j.id = o.at("id").get<std::string>();
    j.pid = o.at("pid").get<int>();
    j.argv = o.at("argv").get<std::vector<std::string>>();
    j.state = o.at("state").get<std::string>();
    if (!o.at("exit_code").is_null()) j.exit_code = o.at("exit_code").get<int>();
    j.started_at = o.at("started_at").get<std::string>();
    j.ended_at = o.at("ended_at").get<std::string>();
    j.dropped_stdout = o.at("dropped_stdout").get<std::uint64_t>();
    j.dropped_stderr = o.at("dropped_stderr").get<std::uint64_t>();
    j.output_limit_reached = o.value("output_limit_reached", false);  // absent in older records
    return j;
  } catch (const nlohmann::json::exception& e) {
    return make_error(Errc::io_error, std::string("malformed job record: ") + e.what());
  }
}

bool valid_job_id(const std::string& id) {
  return id.size() == 8 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

Result<Job> load_job(const std::string& logs_dir, const std::string& id) {
  if (!valid_job_id(id))
    return make_error(Errc::invalid_input,
                      "invalid job id \"" + id + "\": ids are 8 hex digits, as `corral ps` shows");
  std::ifstream in(logs_dir + "/" + id + ".json");
  if (!in) return make_error(Errc::not_found, "no background process with id " + id);
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded()) return make_error(Errc::io_error, "job record " + id + " is not JSON");
  return job_from_json(j);
}

std::vector<Job> list_jobs(const std::string& logs_dir) {
  std::vector<Job> jobs;
  DIR* d = opendir(logs_dir.c_str());
  if (!d) return jobs;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n.size() != 13 || !n.ends_with(".json")) continue;
    if (auto j = load_job(logs_dir, n.substr(0, 8))) jobs.push_back(std::move(*j));
  }
  closedir(d);
  std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) {
    return a.started_at != b.started_at ? a.started_at < b.started_at : a.id < b.id;
  });
  return jobs;
}

void mark_jobs_killed(const std::string& logs_dir) {
  for (Job j : list_jobs(logs_dir)) {
    if (j.state != "running") continue;
    j.state = "killed";
    j.ended_at = now_rfc3339();
    (void)write_file_atomic(logs_dir + "/" + j.id + ".json", job_to_json(j).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", 0600);
  }
}

}  // namespace corral::sandbox
