// The supervisor's side of each exec's seccomp listener: the command's refused calls and the
// writes its filesystem view refuses become violations, kept for the client that waits on
// the command (foreground) and appended to logs/violations.jsonl (every exec, -d included).
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "enforce/record.hpp"
#include "enforce/violations.hpp"
#include "linux/seccomp.hpp"

namespace corral::sandbox {

class ExecWatches {
 public:
  // `guard`: what each monitor checks beyond the mounts; `logs_dir_fd`: where
  // violations.jsonl goes (-1: nowhere).
  ExecWatches(std::vector<int> watched_nrs, FsGuard guard, int logs_dir_fd)
      : watched_(std::move(watched_nrs)), guard_(std::move(guard)),
        logs_dir_fd_(logs_dir_fd) {}

  // Starts answering `listener` (owned from now on) for the command `pid` (job id or "").
  void add(int listener, pid_t pid, const std::string& job_id);

  std::vector<int> fds() const;  // to poll for POLLIN
  // Answers every call waiting on `fd`; forgets it once nobody uses its filter (`hangup`).
  void handle(int fd, bool hangup);

  // The violations of foreground command `pid` (which has ended), and forgets them. What its
  // leftover processes do later goes to the log only.
  std::vector<Violation> take(pid_t pid);

  // Appends one violation of command `pid` (job id or "") to logs/violations.jsonl.
  void log(pid_t pid, const std::string& job_id, const Violation& v);

 private:
  struct Watch {
    std::unique_ptr<SeccompMonitor> monitor;
    pid_t pid = 0;
    std::string job_id;
    ViolationCap cap;  // bounds the log and the client's list, per exec
    bool taken = false;  // foreground: take() has handed its list over
  };

  std::vector<int> watched_;
  FsGuard guard_;
  int logs_dir_fd_;
  std::map<int, Watch> watches_;                       // by listener fd
  std::map<pid_t, std::vector<Violation>> pending_;    // by command pid
};

}  // namespace corral::sandbox
