// Landlock's refusals in one run, picked out of the kernel audit log (linux/audit_log.hpp):
// the records of the Landlock domain the sandbox's init created, as violations.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "enforce/record.hpp"
#include "linux/audit_log.hpp"

namespace corral {

class LandlockDenials {
 public:
  // `init_pid`: the host pid of the process that called landlock_restrict_self. The kernel
  // names it in the domain's first record, which is how this run's domain is told apart from
  // every other on the host.
  explicit LandlockDenials(pid_t init_pid) : init_pid_(init_pid) {}

  // Any record from the log; keeps only what may concern this run (bounded).
  void add(const audit::Record& r);

  // This run's denials, in order, at most kMaxTrappedViolations (then a "truncated" entry).
  std::vector<Violation> violations() const;

 private:
  struct Access {
    std::string serial, domain, body;
  };
  void keep(Access a);

  pid_t init_pid_;
  std::set<std::string> ours_, foreign_;         // domain ids, once their first record came
  std::vector<Access> kept_;                     // this run's (domain known to be ours)
  std::map<std::string, std::vector<Access>> pending_;  // domain not named yet
  std::size_t pending_count_ = 0;
  std::uint64_t dropped_ = 0;                    // past the cap
  std::map<std::string, audit::Record> syscalls_;  // serial -> SYSCALL record, for kept serials
};

}  // namespace corral
