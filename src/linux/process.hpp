// Process primitives: clone3 into new namespaces with a pidfd, and pidfd signalling.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace corral {

struct CloneResult {
  pid_t pid = -1;   // 0 in the child, the child's pid in the parent, -1 on failure (errno set)
  int pidfd = -1;   // parent only: a pidfd for the child (CLOEXEC)
};

// clone3() with `ns_flags` (CLONE_NEW*), CLONE_PIDFD and SIGCHLD as exit signal. Behaves like
// fork(): returns twice. The child must not rely on glibc's atfork handlers (they do not run),
// so it must not take locks another thread may hold (no malloc, no stdio) — see enforce/contain.
// With `cgroup_fd` >= 0 the child starts in that cgroup (CLONE_INTO_CGROUP, cgroup v2), which
// costs nothing, unlike moving it there afterwards.
CloneResult clone_into_namespaces(std::uint64_t ns_flags, int cgroup_fd = -1);

int pidfd_signal(int pidfd, int sig);

// Closes every fd but those in `keep` (negative entries ignored): for processes that live for
// hours (a supervisor, an egress keeper) and must not hold what their creator had open.
void close_all_fds_but(std::vector<int> keep);

}  // namespace corral
