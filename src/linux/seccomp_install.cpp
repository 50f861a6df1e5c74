// Child side of the seccomp layer: one seccomp(2) call on a program compiled by the parent.
// Runs in a child created by raw clone3, so it allocates nothing and takes no locks.
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>

#include "linux/seccomp.hpp"

namespace corral {

int install_seccomp_filter(const SeccompProgram& prog, bool want_listener, int* listener_fd) {
  if (prog.code.empty() || prog.code.size() > USHRT_MAX) return EINVAL;
  // A notify rule with no listener makes the kernel fail the call with ENOSYS: still blocked,
  // but unobserved and with an errno programs read as "no such syscall". Refuse the mismatch.
  if (prog.needs_listener && !want_listener) return EINVAL;
  if (want_listener && listener_fd == nullptr) return EINVAL;

  sock_fprog fprog;
  fprog.len = static_cast<unsigned short>(prog.code.size());
  fprog.filter = const_cast<sock_filter*>(prog.code.data());  // the kernel copies, never writes
  // No SECCOMP_FILTER_FLAG_TSYNC: the caller is single-threaded, and TSYNC with NEW_LISTENER
  // would need TSYNC_ESRCH besides. The kernel creates the listener fd O_CLOEXEC.
  unsigned flags = want_listener ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
  long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog);
  if (rc < 0) return errno;
  if (want_listener) *listener_fd = static_cast<int>(rc);
  return 0;
}

}  // namespace corral
