// Violations of the commands a supervisor runs (see exec_watch.hpp).
#include "sandbox/exec_watch.hpp"

#include <fcntl.h>
#include <unistd.h>

#include "enforce/violations.hpp"

namespace corral::sandbox {

void ExecWatches::add(int listener, pid_t pid, const std::string& job_id) {
  Watch w;
  w.monitor = std::make_unique<SeccompMonitor>(listener, watched_, guard_);
  w.pid = pid;
  w.job_id = job_id;
  watches_[w.monitor->fd()] = std::move(w);
}

std::vector<int> ExecWatches::fds() const {
  std::vector<int> out;
  for (const auto& [fd, w] : watches_) out.push_back(fd);
  return out;
}

void ExecWatches::handle(int fd, bool hangup) {
  auto it = watches_.find(fd);
  if (it == watches_.end()) return;
  Watch& w = it->second;
  auto keep = [&](Violation v) {
    log(w.pid, w.job_id, v);
    if (w.job_id.empty() && !w.taken) pending_[w.pid].push_back(std::move(v));
  };
  // At most a batch per turn, so other execs and new clients get their turn in between.
  for (int k = 0; k < kSeccompEventsPerWake; ++k) {
    auto ev = w.monitor->handle_one();
    if (!ev) break;
    if (k == kSeccompEventsPerWake - 1) hangup = false;  // more may wait: come back first
    auto v = violation_of(*ev);
    if (v && w.cap.admit()) keep(std::move(*v));
  }
  if (!hangup) return;
  if (auto t = w.cap.summary(); t && !w.taken) keep(std::move(*t));
  watches_.erase(it);
}

std::vector<Violation> ExecWatches::take(pid_t pid) {
  std::vector<Violation> out;
  if (auto it = pending_.find(pid); it != pending_.end()) {
    out = std::move(it->second);
    pending_.erase(it);
  }
  for (auto& [fd, w] : watches_) {
    if (w.pid != pid || !w.job_id.empty() || w.taken) continue;
    w.taken = true;
    if (auto t = w.cap.summary()) {
      log(w.pid, w.job_id, *t);
      out.push_back(std::move(*t));
    }
  }
  return out;
}

void ExecWatches::log(pid_t pid, const std::string& job_id, const Violation& v) {
  auto j = violation_to_json(v);
  j["exec_pid"] = pid;
  if (!job_id.empty()) j["job"] = job_id;
  append_violation_line(logs_dir_fd_, j);
}

}  // namespace corral::sandbox
