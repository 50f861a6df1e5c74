// Landlock's refusals in one run, picked out of the kernel audit log (linux/audit_log.hpp).
//
// Which records are the run's: right after it restricts itself, the sandbox's init makes one
// write Landlock refuses (a beacon: see contain.cpp). That event's SYSCALL record names the
// init's host pid, which no other process can hold while the init lives, and its ACCESS
// record names the init's Landlock domain. Every later ACCESS record of that domain is the
// run's. (Matching the pid in a domain's "allocated" record instead would be wrong: the kernel
// logs that record at a domain's first denial, possibly long after its creator exited and its
// pid went to our init.)
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "enforce/record.hpp"
#include "linux/audit_log.hpp"

namespace corral {

class LandlockDenials {
 public:
  // `init_pid`: the host pid of the sandbox's init.
  explicit LandlockDenials(pid_t init_pid) : init_pid_(init_pid) {}

  // Any record from the log; keeps only what concerns this run. Memory stays bounded whatever
  // the host or the command logs.
  void add(const audit::Record& r);

  // Whether the beacon was seen (the run's domain is known).
  bool identified() const { return domain_.has_value(); }

  // This run's denials, in order, at most kMaxTrappedViolations (then a "truncated" entry).
  std::vector<Violation> violations() const;

 private:
  struct Access {
    std::string serial, domain, body;
  };
  struct Call {
    std::string name, comm;
  };

  pid_t init_pid_;
  std::optional<std::string> domain_;
  std::string beacon_serial_;
  std::deque<Access> recent_;        // before the beacon: the last few ACCESS records
  std::vector<Access> kept_;         // the run's
  std::uint64_t dropped_ = 0;        // the run's, past the cap
  std::map<std::string, Call> calls_;  // serial of a kept record -> its SYSCALL record
};

}  // namespace corral
