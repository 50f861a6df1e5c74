// The lifecycle verbs: each takes the sandbox's lock, checks the state it needs, acts, and
// writes the new state atomically. Exec (exec_client.cpp) takes no lock.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>

#include "enforce/record.hpp"
#include "enforce/violations.hpp"
#include "linux/probe.hpp"
#include "linux/proc_identity.hpp"
#include "linux/process.hpp"
#include "policy/show.hpp"
#include "sandbox/api.hpp"
#include "sandbox/policy_json.hpp"
#include "sandbox/sandbox_cgroup.hpp"
#include "sandbox/spawn.hpp"
#include "sandbox/store.hpp"

namespace corral::sandbox {
namespace {

Result<Paths> paths_of(const std::string& name) {
  if (auto r = validate_name(name); !r) return std::move(r).error();
  auto root = state_root();
  if (!root) return std::move(root).error();
  return paths_for(*root, name);
}

Error io(const std::string& what, const std::string& path) {
  Error e = make_error(Errc::io_error, what + ": " + std::strerror(errno));
  e.file = path;
  return e;
}

// Ends the supervisor and with it every process of the sandbox (PID 1's death empties its pid
// namespace). Waits until they are gone.
// Kills `who` if it is still the process we recorded, and waits until it is gone. With a
// `grace` it gets that long to end by itself first.
void kill_identified(const ProcessIdentity& who, int grace_ms = 0) {
  if (who.pid <= 0) return;
  UniqueFd pidfd(open_pidfd(who.pid));
  if (!pidfd.valid()) return;
  // Checked after opening: the pidfd now pins the process we verified, never a recycled pid.
  if (process_start_time(who.pid) != who.start_time) return;
  pollfd p{pidfd.get(), POLLIN, 0};
  if (grace_ms > 0) {
    int rc;
    while ((rc = poll(&p, 1, grace_ms)) < 0 && errno == EINTR) {
    }
    if (rc == 1) {
      int st;
      waitpid(who.pid, &st, WNOHANG);
      return;
    }
  }
  pidfd_signal(pidfd.get(), SIGKILL);
  while (poll(&p, 1, 10000) < 0 && errno == EINTR) {
  }
  // If we (a library caller) were its parent, do not leave a zombie.
  int st;
  waitpid(who.pid, &st, WNOHANG);
}

void kill_supervisor(const State& s) {
  // Its cgroup goes too, also when the supervisor had already died (crash, OOM kill).
  struct RemoveCgroup {
    const State& s;
    ~RemoveCgroup() { remove_sandbox_cgroup(s.cgroup); }
  } remove_cgroup{s};
  kill_identified(s.supervisor);
  // The keeper leaves by itself when the supervisor dies, after logging its last refusals:
  // it gets two seconds for that.
  kill_identified(s.egress_keeper, 2000);
}

Result<State> spawn_into(const Paths& paths, State s) {
  auto policy = policy_from_json(s.policy);
  if (!policy) return std::move(policy).error();
  SpawnRequest req{s.name, std::move(*policy), paths, s.home, s.log_limit_bytes};
  // A supervisor that died (failed) may have left its cgroup: a new one is made below.
  remove_sandbox_cgroup(s.cgroup);
  s.cgroup.clear();
  auto id = spawn_supervisor(req);
  if (!id) {
    s.status = Status::failed;
    s.error = id.error().message;
    s.supervisor = {};
    s.egress_keeper = {};
    (void)save_state(paths, s);
    return std::move(id).error();
  }
  s.status = Status::running;
  s.supervisor = id->supervisor;
  s.egress_keeper = id->egress_keeper;
  s.cgroup = id->cgroup;
  s.creator = {};
  s.error.clear();
  s.started_at = now_rfc3339();
  if (auto r = save_state(paths, s); !r) {
    kill_supervisor(s);
    return std::move(r).error();
  }
  return s;
}

Result<void> remove_tree(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!ec) return {};
  // A command may have left directories without write permission: open them up and retry.
  for (auto it = std::filesystem::recursive_directory_iterator(
           dir, std::filesystem::directory_options::skip_permission_denied, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->is_directory(ec) && !it->is_symlink(ec)) chmod(it->path().c_str(), 0700);
  chmod(dir.c_str(), 0700);
  ec.clear();
  std::filesystem::remove_all(dir, ec);
  if (ec) {
    Error e = make_error(Errc::io_error, "cannot remove: " + ec.message());
    e.file = dir;
    return e;
  }
  return {};
}

}  // namespace

Result<State> create(const CreateRequest& rq) {
  auto paths = paths_of(rq.name);
  if (!paths) return std::move(paths).error();
  std::string root = paths->dir.substr(0, paths->dir.rfind("/sandboxes/"));
  std::error_code ec;
  std::filesystem::create_directories(root + "/sandboxes", ec);
  chmod(root.c_str(), 0700);
  // mkdir is the claim on the name: exactly one concurrent create wins it.
  if (mkdir(paths->dir.c_str(), 0700) != 0) {
    if (errno == EEXIST)
      return make_error(Errc::already_exists,
                        fmt::format("sandbox {} already exists; to recreate it, remove it first "
                                    "(`corral rm -f {}`, which deletes its home volume) or keep "
                                    "the volume with `corral update {}`",
                                    rq.name, rq.name, rq.name));
    return io("cannot create the sandbox's directory", paths->dir);
  }
  auto lock = StateLock::acquire(*paths);
  if (!lock) return std::move(lock).error();
  if (mkdir(paths->home.c_str(), 0700) != 0 || mkdir(paths->logs.c_str(), 0700) != 0) {
    auto e = io("cannot create the sandbox's directories", paths->dir);
    (void)remove_tree(paths->dir);
    return e;
  }
  State s;
  s.name = rq.name;
  s.status = Status::creating;
  s.policy = policy_to_json(rq.policy);
  s.policy_hash = policy_hash(rq.policy);
  s.inputs = rq.inputs;
  s.workspaces = rq.workspaces;
  s.home = rq.home;
  if (s.home.empty()) {
    const char* h = getenv("HOME");
    s.home = h && *h == '/' ? h : "/root";
  }
  s.created_at = now_rfc3339();
  s.creator = {getpid(), process_start_time(getpid())};
  s.log_limit_bytes = rq.log_limit_bytes;
  if (auto r = save_state(*paths, s); !r) {
    (void)remove_tree(paths->dir);
    return std::move(r).error();
  }
  auto started = spawn_into(*paths, s);
  if (!started) {
    // Nothing of a sandbox that never ran is worth keeping: the name is free again.
    (void)remove_tree(paths->dir);
    return std::move(started).error();
  }
  return started;
}

Result<State> start(const std::string& name) {
  auto paths = paths_of(name);
  if (!paths) return std::move(paths).error();
  auto s = load_state(*paths);
  if (!s) return s;
  auto lock = StateLock::acquire(*paths);
  if (!lock) return std::move(lock).error();
  s = load_state(*paths);
  if (!s) return s;
  if (auto r = check_can_start(name, live_status(*s)); !r) return std::move(r).error();
  if (s->status == Status::running) mark_jobs_killed(paths->logs);  // it failed: jobs are gone
  return spawn_into(*paths, std::move(*s));
}

Result<State> stop(const std::string& name) {
  auto paths = paths_of(name);
  if (!paths) return std::move(paths).error();
  auto s = load_state(*paths);
  if (!s) return s;
  auto lock = StateLock::acquire(*paths);
  if (!lock) return std::move(lock).error();
  s = load_state(*paths);  // again, under the lock
  if (!s) return s;
  if (auto r = check_can_stop(name, live_status(*s)); !r) return std::move(r).error();
  kill_supervisor(*s);
  mark_jobs_killed(paths->logs);
  s->status = Status::stopped;
  s->supervisor = {};
  s->egress_keeper = {};
  s->cgroup.clear();
  s->stopped_at = now_rfc3339();
  if (auto r = save_state(*paths, *s); !r) return std::move(r).error();
  return s;
}

Result<void> remove(const std::string& name, bool force) {
  auto paths = paths_of(name);
  if (!paths) return std::move(paths).error();
  auto s = load_state(*paths);
  if (!s) {
    struct stat st;
    // A directory without a state: a create that crashed before writing one.
    if (s.error().code == Errc::not_found && stat(paths->dir.c_str(), &st) == 0)
      return remove_tree(paths->dir);
    return std::move(s).error();
  }
  auto lock = StateLock::acquire(*paths);
  if (!lock) return std::move(lock).error();
  s = load_state(*paths);
  if (!s) return std::move(s).error();
  Status live = live_status(*s);
  if (auto r = check_can_remove(name, live, force); !r) return std::move(r).error();
  if (live == Status::running || live == Status::failed) kill_supervisor(*s);
  return remove_tree(paths->dir);
}

Result<State> update(const std::string& name, const EffectivePolicy& policy) {
  auto paths = paths_of(name);
  if (!paths) return std::move(paths).error();
  auto s = load_state(*paths);
  if (!s) return s;
  auto lock = StateLock::acquire(*paths);
  if (!lock) return std::move(lock).error();
  s = load_state(*paths);
  if (!s) return s;
  Status live = live_status(*s);
  if (auto r = check_can_update(name, live); !r) return std::move(r).error();
  if (live == Status::running) kill_supervisor(*s);
  mark_jobs_killed(paths->logs);
  s->policy = policy_to_json(policy);
  s->policy_hash = policy_hash(policy);
  s->supervisor = {};
  s->egress_keeper = {};
  if (live == Status::stopped) {
    s->status = Status::stopped;
    if (auto r = save_state(*paths, *s); !r) return std::move(r).error();
    return s;
  }
  return spawn_into(*paths, std::move(*s));
}

std::vector<State> list() {
  std::vector<State> out;
  auto root = state_root();
  if (!root) return out;
  for (const auto& n : list_names(*root)) {
    auto s = load_state(paths_for(*root, n));
    if (!s) continue;
    s->status = live_status(*s);
    out.push_back(std::move(*s));
  }
  return out;
}

namespace {
std::size_t count_lines(const std::string& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}
}  // namespace

Result<Inspection> inspect(const std::string& name) {
  auto paths = paths_of(name);
  if (!paths) return std::move(paths).error();
  auto s = load_state(*paths);
  if (!s) return std::move(s).error();
  Inspection in;
  in.state = std::move(*s);
  in.state.status = live_status(in.state);
  if (in.state.status == Status::running) {
    in.pids.push_back(in.state.supervisor.pid);
    for (pid_t p : descendants_of(in.state.supervisor.pid)) in.pids.push_back(p);
    for (int p : in.pids) in.resident_bytes += resident_bytes(p);
    // The egress keeper is host memory the sandbox costs too (it is not in the sandbox).
    const auto& k = in.state.egress_keeper;
    if (k.pid > 0 && process_start_time(k.pid) == k.start_time)
      in.resident_bytes += resident_bytes(k.pid);
    if (!in.state.cgroup.empty()) {
      SandboxUsage u = sandbox_usage(in.state.cgroup);
      in.cgroup_usage = {{"memory_bytes", u.memory_bytes},
                         {"peak_memory_bytes", u.peak_memory_bytes},
                         {"oom_kills", u.oom_kills},
                         {"pids", u.pids},
                         {"cpu_ms", u.cpu_ms}};
    }
  }
  in.jobs = list_jobs(paths->logs);
  in.violations = count_lines(paths->logs + "/violations.jsonl");
  const bool watch_reads = in.state.policy.contains("filesystem") &&
                           in.state.policy["filesystem"].value("watch_reads", false);
  in.not_observed = {reads_not_observed(watch_reads), kEaccesWritesNotObserved,
                     "landlock denials: a persistent sandbox does not read the kernel audit "
                     "log (`corral run` does, as root with audit on)"};
  // With an allowlist, the keeper's proxy appends its refusals to logs/violations.jsonl.
  const bool allowlist = in.state.policy.contains("network") &&
                         in.state.policy["network"].value("mode", "") == "allowlist";
  in.not_observed.push_back(
      allowlist ? "network: connects straight to an address fail (no route) and are not "
                  "recorded; the proxy's refusals are in logs/violations.jsonl but not in any "
                  "one exec's summary"
                : "network");
  if (!probe_features().seccomp_user_notif)
    in.not_observed.push_back("seccomp and filesystem writes: refused, but this kernel cannot "
                              "report them (no SECCOMP_RET_USER_NOTIF)");
  return in;
}

nlohmann::json inspection_to_json(const Inspection& in) {
  nlohmann::json j = state_to_json(in.state);
  j.erase("creator");
  j.erase("inputs");
  j["pids"] = in.pids;
  j["resident_bytes"] = in.resident_bytes;
  j["cgroup_usage"] = in.cgroup_usage;
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& job : in.jobs) jobs.push_back(job_to_json(job));
  j["jobs"] = std::move(jobs);
  j["violations"] = in.violations;
  j["not_observed"] = in.not_observed;
  return j;
}

Result<std::string> logs_dir(const std::string& name) {
  auto paths = paths_of(name);
  if (!paths) return std::move(paths).error();
  if (auto s = load_state(*paths); !s) return std::move(s).error();
  return paths->logs;
}

std::vector<std::string> reap_failed() {
  std::vector<std::string> out;
  auto root = state_root();
  if (!root) return out;
  for (const auto& n : list_names(*root)) {
    Paths p = paths_for(*root, n);
    auto s = load_state(p);
    if (!s || live_status(*s) != Status::failed || s->status == Status::failed) continue;
    auto lock = StateLock::acquire(p);
    if (!lock) continue;
    s = load_state(p);
    if (!s || live_status(*s) != Status::failed || s->status == Status::failed) continue;
    s->error = s->status == Status::creating ? "its creator died during create"
                                             : "its supervisor died";
    s->status = Status::failed;
    s->supervisor = {};
    s->egress_keeper = {};
    mark_jobs_killed(p.logs);
    if (save_state(p, *s)) out.push_back(n);
  }
  return out;
}

}  // namespace corral::sandbox
