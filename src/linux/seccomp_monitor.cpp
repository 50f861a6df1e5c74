// Parent side of the seccomp layer: receives the calls the filter traps, refuses each with
// EPERM and turns it into an event the run record can report.
#include <errno.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "linux/seccomp.hpp"

namespace corral {
namespace {

// Linux 6.6 uapi, newer than Debian 12's headers.
constexpr unsigned long kSetFlags = SECCOMP_IOW(4, std::uint64_t);  // SECCOMP_IOCTL_NOTIF_SET_FLAGS
constexpr std::uint64_t kSyncWakeUp = 1;  // SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP

std::string syscall_name(std::uint32_t arch, int nr) {
  // SCMP_ARCH_* tokens are the kernel's AUDIT_ARCH_* values, so data.arch maps directly.
  char* name = seccomp_syscall_resolve_num_arch(arch, nr);
  std::string out = name ? name : "syscall_" + std::to_string(nr);
  std::free(name);
  return out;
}

}  // namespace

SeccompMonitor::SeccompMonitor(int listener_fd, std::vector<int> watched, FsGuard guard)
    : fd_(listener_fd), watched_(std::move(watched)), guard_(std::move(guard)) {
  // The kernel's structs may have grown since our headers were written; RECV writes the
  // kernel's size, so the buffers must be at least that large.
  seccomp_notif_sizes sizes;
  std::memset(&sizes, 0, sizeof sizes);
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
    sizes.seccomp_notif = sizeof(seccomp_notif);
    sizes.seccomp_notif_resp = sizeof(seccomp_notif_resp);
  }
  // Linux 6.6+: the trapped caller hands its CPU straight to us and back, instead of two
  // ordinary wake-ups (each can wait for another CPU to be scheduled). Without it every
  // watched write costs tens of microseconds more; older kernels just refuse the flag.
  std::uint64_t sync_flags = kSyncWakeUp;
  (void)ioctl(fd_.get(), kSetFlags, sync_flags);
  notif_buf_.resize(std::max<size_t>(sizes.seccomp_notif, sizeof(seccomp_notif)));
  resp_buf_.resize(std::max<size_t>(sizes.seccomp_notif_resp, sizeof(seccomp_notif_resp)));
}

std::optional<SeccompEvent> SeccompMonitor::handle_one() {
  if (!fd_.valid()) return std::nullopt;
  // RECV sleeps until a call is trapped, even when no process uses the filter any more; only
  // go in when poll says a call is waiting, so the supervisor's loop can never hang here.
  pollfd p{fd_.get(), POLLIN, 0};
  int ready;
  do {
    ready = poll(&p, 1, 0);
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0 || !(p.revents & POLLIN)) return std::nullopt;

  // RECV insists on a zeroed buffer (room for future input fields).
  std::fill(notif_buf_.begin(), notif_buf_.end(), 0);
  auto* notif = reinterpret_cast<seccomp_notif*>(notif_buf_.data());
  // ENOENT: the caller died (or its wait was interrupted) between poll and here.
  if (ioctl(fd_.get(), SECCOMP_IOCTL_NOTIF_RECV, notif) != 0) return std::nullopt;

  SeccompEvent ev;
  ev.time = std::chrono::system_clock::now();
  ev.nr = notif->data.nr;
  ev.arch = notif->data.arch;
  ev.pid = static_cast<pid_t>(notif->pid);
  for (int i = 0; i < 6; ++i) ev.args[i] = notif->data.args[i];
  ev.syscall = syscall_name(ev.arch, ev.nr);
  ev.refused = !std::binary_search(watched_.begin(), watched_.end(), ev.nr);
  // mknod is watched for files, FIFOs and sockets and blocked for device nodes, both by
  // notification: its mode (a register, not memory) tells which rule sent it.
  if (ev.syscall == "mknod" || ev.syscall == "mknodat") {
    auto type = ev.args[ev.syscall == "mknod" ? 1 : 2] & S_IFMT;
    if (type == S_IFCHR || type == S_IFBLK) ev.refused = true;
  }
  if (!ev.refused) {
    ev.write = check_fs_write(ev.pid, ev.syscall, ev.args, guard_);
    // The pid may have died and been reused while we read its memory: then what we read is
    // somebody else's, and says nothing about this call.
    std::uint64_t id = notif->id;
    if (ioctl(fd_.get(), SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0) ev.write.reset();
  }

  // A refused call gets an error, never SECCOMP_USER_NOTIF_FLAG_CONTINUE. A watched write
  // continues and the kernel decides (a read-only mount refuses it), except one that reaches a
  // write_deny path no mount protects (it did not exist at start), or moves or removes the way
  // to a write_deny path or the state directory: those we refuse, with a read-only mount's
  // EROFS, whatever the kernel was predicted to do. That decision rests on the path we read from the caller's memory;
  // another thread of the caller could change it in between (seccomp_unotify(2)), so against
  // a deliberate racer it is a best effort, where the mounts are not.
  const bool deny_write =
      ev.write && (!ev.write->absent_deny.empty() || !ev.write->unmoors.empty());
  if (deny_write) {
    ev.write->refused = true;
    ev.write->error = "EROFS";
  }
  std::fill(resp_buf_.begin(), resp_buf_.end(), 0);
  auto* resp = reinterpret_cast<seccomp_notif_resp*>(resp_buf_.data());
  resp->id = notif->id;
  resp->error = ev.refused ? -EPERM : deny_write ? -EROFS : 0;
  resp->val = 0;
  resp->flags = ev.refused || deny_write ? 0 : SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  int rc;
  do {
    rc = ioctl(fd_.get(), SECCOMP_IOCTL_NOTIF_SEND, resp);
  } while (rc != 0 && errno == EINTR);
  // ENOENT here: the caller died after we received its call. The attempt still happened, so
  // the event is reported; there is nobody left to answer.
  return ev;
}

}  // namespace corral
