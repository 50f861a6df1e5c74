// The sandbox's seccomp layer: a filter compiled in the parent, installed by the child with one
// syscall, and a parent-side responder that observes and refuses the calls it traps.
#pragma once

#include <linux/filter.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "linux/fd.hpp"
#include "linux/fs_write_check.hpp"

namespace corral {

struct SeccompOptions {
  enum class Profile {
    // Blocks what a process without capabilities could still use against the kernel or its
    // neighbours: the mount API, nested namespaces, ptrace and cross-process memory access,
    // bpf/perf/io_uring/userfaultfd/keyrings, module and kexec loading, time changes, terminal
    // injection (TIOCSTI/TIOCLINUX), ASLR disabling, file handles. See seccomp_compile.cpp.
    default_profile,
    // default_profile plus: sockets other than AF_UNIX/AF_INET/AF_INET6, device nodes
    // (mknod of char/block), chroot, kcmp, process_madvise, and on x86 iopl/ioperm/modify_ldt.
    strict,
  };
  Profile profile = Profile::default_profile;
  // Lets the sandboxed command create (and enter) user namespaces of its own: unshare, clone
  // with CLONE_NEW*, clone3 and setns are then allowed. The mount family stays blocked.
  bool allow_nested_userns = false;
  // Blocked calls go to a supervisor (SECCOMP_RET_USER_NOTIF), which records them and answers
  // EPERM; without it they fail with EPERM in the kernel and nobody hears of them.
  bool notify = true;
  // Further syscalls (libseccomp names) blocked outright, with the same action as the profile's
  // own blocks. A name libseccomp does not know is an invalid_input error; one it knows but the
  // native architecture lacks is skipped, as in the profiles.
  std::vector<std::string> extra_blocked;
  // With notify: write-type calls (fs_write_check.hpp) also go to the supervisor, which looks
  // where they land, records the ones a read-only mount will refuse, and lets them continue.
  // Calls the profile blocks are not watched.
  bool watch_writes = false;
  // With watch_writes: every open (not only those with a write flag) is watched, so reads of
  // read_deny paths can be named. Costs one round trip to the supervisor per open.
  bool watch_reads = false;

  friend bool operator==(const SeccompOptions&, const SeccompOptions&) = default;
};

struct SeccompProgram {
  std::vector<sock_filter> code;           // classic BPF, ready for SECCOMP_SET_MODE_FILTER
  std::vector<std::string> blocked_names;  // syscalls with any blocking rule, sorted (docs/tests)
  std::vector<std::string> rules;          // one human-readable line per rule, e.g. for `show`
  bool needs_listener = false;             // some rule uses SECCOMP_RET_USER_NOTIF
  std::vector<int> watched_nrs;  // calls the supervisor looks at and lets continue (sorted)
};

// Builds the filter with libseccomp. Compiled once per distinct options per process (later
// calls return a copy from a cache), so it is cheap to call on every run. Fails with
// Errc::unsupported when libseccomp or the kernel lacks an action the options need.
Result<SeccompProgram> compile_seccomp_filter(const SeccompOptions& options);

// Child side, after no_new_privs: installs `prog` on the calling thread (no TSYNC: the sandbox
// init is single-threaded). With `want_listener`, *listener_fd receives the notification fd
// (O_CLOEXEC) that the supervisor must own. Returns 0 or an errno value; EINVAL when the
// program needs a listener and none is wanted (its blocked calls would fail with ENOSYS, not
// be observed), EBUSY when an enclosing filter already has a listener. Allocates nothing, takes
// no locks: safe in a child made by raw clone3.
int install_seccomp_filter(const SeccompProgram& prog, bool want_listener, int* listener_fd);

struct SeccompEvent {
  // A refused call (answered EPERM), or a watched write-type call (let continue; `write` says
  // where it lands, when that could be read).
  bool refused = true;
  std::optional<FsWriteCheck> write;
  std::string syscall;  // e.g. "mount"; "syscall_<nr>" when libseccomp does not know it
  int nr = -1;
  std::uint32_t arch = 0;  // AUDIT_ARCH_* (equal to SCMP_ARCH_*)
  pid_t pid = 0;           // the caller, as seen from the receiving process's pid namespace
  std::uint64_t args[6] = {};
  std::chrono::system_clock::time_point time;
};

// How many trapped calls a loop answers per wake-up before it looks at its other duties (a
// deadline, output, signals, new clients): a command trapping calls from many threads in a loop
// must not keep the answering loop busy for ever.
inline constexpr int kSeccompEventsPerWake = 64;

// Parent side: answers every trapped call with EPERM and reports it, except the watched
// write-type calls, which it looks at and lets continue (but for absent write_deny paths).
class SeccompMonitor {
 public:
  // Takes ownership of `listener_fd`. `watched`: the program's watched_nrs.
  // `guard`: writes that reach an absent write_deny path are refused with EROFS; with
  // watch_reads, opens of read_deny paths are named (fs_guard.hpp).
  explicit SeccompMonitor(int listener_fd, std::vector<int> watched = {}, FsGuard guard = {});

  // Poll this for POLLIN (a trapped call waits); POLLHUP means no process uses the filter any
  // more.
  int fd() const { return fd_.get(); }

  // Receives one trapped call and answers EPERM. Never blocks: returns nullopt when no call is
  // waiting, the caller died before it could be received, or the fd failed. A caller that dies
  // after being received still yields its event (the attempt happened).
  std::optional<SeccompEvent> handle_one();

 private:
  UniqueFd fd_;
  std::vector<int> watched_;
  FsGuard guard_;
  std::vector<unsigned char> notif_buf_;  // sized by SECCOMP_GET_NOTIF_SIZES, at least ours
  std::vector<unsigned char> resp_buf_;
};

}  // namespace corral
