// Sandbox names, lifecycle rules and the state's JSON form.
#include "sandbox/state.hpp"

#include <fmt/format.h>

namespace corral::sandbox {

Result<void> validate_name(const std::string& name) {
  auto bad = [&](const std::string& why) {
    Error e = make_error(Errc::invalid_input,
                         fmt::format("invalid sandbox name \"{}\": {}", name, why));
    e.key = "NAME";
    return e;
  };
  if (name.empty()) return bad("it is empty");
  if (name.size() > 63) return bad("it is longer than 63 characters");
  if (!isalnum(static_cast<unsigned char>(name[0])))
    return bad("it must start with a letter or a digit");
  for (char c : name)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'))
      return bad(fmt::format("'{}' is not allowed (use letters, digits, '_', '.', '-')",
                             c == '\n' ? std::string("\\n") : std::string(1, c)));
  return {};
}

const char* status_name(Status s) {
  switch (s) {
    case Status::creating: return "creating";
    case Status::running: return "running";
    case Status::stopped: return "stopped";
    case Status::failed: return "failed";
  }
  return "failed";
}

Result<Status> parse_status(const std::string& s) {
  for (Status st : {Status::creating, Status::running, Status::stopped, Status::failed})
    if (s == status_name(st)) return st;
  return make_error(Errc::io_error, fmt::format("unknown sandbox state \"{}\"", s));
}

Result<void> check_can_exec(const std::string& name, Status s) {
  switch (s) {
    case Status::running: return {};
    case Status::stopped:
      return make_error(Errc::not_running, fmt::format("sandbox {} is stopped; start it with "
                                                       "`corral start {}`", name, name));
    case Status::failed:
      return make_error(Errc::not_running,
                        fmt::format("sandbox {} has failed (its supervisor is gone); restart it "
                                    "with `corral start {}`", name, name));
    case Status::creating:
      return make_error(Errc::not_running,
                        fmt::format("sandbox {} is still being created; try again when `corral "
                                    "ls` shows it running", name));
  }
  return {};
}

Result<void> check_can_stop(const std::string& name, Status s) {
  if (s == Status::running || s == Status::failed) return {};
  if (s == Status::stopped)
    return make_error(Errc::not_running,
                      fmt::format("sandbox {} is already stopped (`corral start {}` starts it)",
                                  name, name));
  return make_error(Errc::not_running,
                    fmt::format("sandbox {} is still being created; nothing to stop", name));
}

Result<void> check_can_start(const std::string& name, Status s) {
  if (s == Status::stopped || s == Status::failed) return {};
  if (s == Status::running)
    return make_error(Errc::not_running, fmt::format("sandbox {} is already running", name));
  return make_error(Errc::not_running,
                    fmt::format("sandbox {} is still being created; wait for it, or remove it "
                                "with `corral rm -f {}`", name, name));
}

Result<void> check_can_remove(const std::string& name, Status s, bool force) {
  if (s != Status::running || force) return {};
  return make_error(Errc::not_running,
                    fmt::format("sandbox {} is running; stop it first (`corral stop {}`) or use "
                                "`corral rm -f {}`", name, name, name));
}

Result<void> check_can_update(const std::string& name, Status s) {
  if (s != Status::creating) return {};
  return make_error(Errc::not_running,
                    fmt::format("sandbox {} is still being created; update it once it is", name));
}

nlohmann::json state_to_json(const State& s) {
  nlohmann::json j;
  j["name"] = s.name;
  j["state"] = status_name(s.status);
  j["policy_hash"] = s.policy_hash;
  j["policy"] = s.policy;
  j["inputs"] = s.inputs;
  nlohmann::json ws = nlohmann::json::array();
  for (const auto& w : s.workspaces) ws.push_back({{"path", w.path}, {"mode", w.mode}});
  j["workspaces"] = std::move(ws);
  j["home"] = s.home;
  j["created_at"] = s.created_at;
  j["started_at"] = s.started_at;
  j["stopped_at"] = s.stopped_at;
  j["supervisor"] = {{"pid", s.supervisor.pid}, {"start_time", s.supervisor.start_time}};
  j["egress_keeper"] = {{"pid", s.egress_keeper.pid},
                        {"start_time", s.egress_keeper.start_time}};
  j["creator"] = {{"pid", s.creator.pid}, {"start_time", s.creator.start_time}};
  j["error"] = s.error;
  j["log_limit_bytes"] = s.log_limit_bytes;
  j["cgroup"] = s.cgroup;
  return j;
}

Result<State> state_from_json(const nlohmann::json& j) {
  try {
    State s;
    s.name = j.at("name").get<std::string>();
    auto st = parse_status(j.at("state").get<std::string>());
    if (!st) return std::move(st).error();
    s.status = *st;
    s.policy_hash = j.at("policy_hash").get<std::string>();
    s.policy = j.at("policy");
    s.inputs = j.at("inputs");
    for (const auto& w : j.at("workspaces"))
      s.workspaces.push_back({w.at("path").get<std::string>(), w.at("mode").get<std::string>()});
    s.home = j.at("home").get<std::string>();
    s.created_at = j.at("created_at").get<std::string>();
    s.started_at = j.at("started_at").get<std::string>();
    s.stopped_at = j.at("stopped_at").get<std::string>();
    s.supervisor = {j.at("supervisor").at("pid").get<pid_t>(),
                    j.at("supervisor").at("start_time").get<std::uint64_t>()};
    if (j.contains("egress_keeper"))  // absent before persistent allowlists existed
      s.egress_keeper = {j.at("egress_keeper").at("pid").get<pid_t>(),
                         j.at("egress_keeper").at("start_time").get<std::uint64_t>()};
    s.creator = {j.at("creator").at("pid").get<pid_t>(),
                 j.at("creator").at("start_time").get<std::uint64_t>()};
    s.error = j.at("error").get<std::string>();
    s.log_limit_bytes = j.at("log_limit_bytes").get<std::uint64_t>();
    s.cgroup = j.value("cgroup", std::vector<std::string>{});  // absent before limits existed
    return s;
  } catch (const nlohmann::json::exception& e) {
    return make_error(Errc::io_error, std::string("malformed sandbox state: ") + e.what());
  }
}

bool inside_workspaces(const std::vector<Workspace>& workspaces, const std::string& path) {
  for (const auto& w : workspaces) {
    if (path == w.path || w.path == "/") return true;
    if (path.size() > w.path.size() && path.compare(0, w.path.size(), w.path) == 0 &&
        path[w.path.size()] == '/')
      return true;
  }
  return false;
}

}  // namespace corral::sandbox
