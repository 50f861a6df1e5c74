// clone3 and pidfd wrappers. clone3 is used (not clone) because it returns a pidfd atomically
// and because CLONE_INTO_CGROUP, which the cgroup layer wants, exists only there.
#include "linux/process.hpp"

#include <linux/sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace corral {

CloneResult clone_into_namespaces(std::uint64_t ns_flags, int cgroup_fd) {
  CloneResult res;
  int pidfd = -1;
  clone_args args;
  std::memset(&args, 0, sizeof args);
  args.flags = ns_flags | CLONE_PIDFD;
  args.pidfd = reinterpret_cast<std::uint64_t>(&pidfd);
  args.exit_signal = SIGCHLD;
  if (cgroup_fd >= 0) {
    args.flags |= CLONE_INTO_CGROUP;
    args.cgroup = static_cast<std::uint64_t>(cgroup_fd);
  }
  long r = syscall(SYS_clone3, &args, sizeof args);
  if (r < 0) return res;
  res.pid = static_cast<pid_t>(r);
  if (r > 0) res.pidfd = pidfd;
  return res;
}

// Raw syscall: glibc 2.36 declares pidfd_send_signal without C linkage for C++.
int pidfd_signal(int pidfd, int sig) {
  return static_cast<int>(syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0));
}

void close_all_fds_but(std::vector<int> keep) {
  std::sort(keep.begin(), keep.end());
  unsigned next = 0;
  for (int fd : keep) {
    if (fd < 0) continue;
    if (static_cast<unsigned>(fd) > next) syscall(SYS_close_range, next, fd - 1, 0);
    next = static_cast<unsigned>(fd) + 1;
  }
  syscall(SYS_close_range, next, ~0U, 0);
}

}  // namespace corral
