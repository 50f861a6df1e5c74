// Tests of the seccomp layer: profiles compile and cache, and a forked child under each filter
// sees the blocked calls fail (or reach a SeccompMonitor) while ordinary calls still work.
// Only no_new_privs is needed, so they run unprivileged as well as as root. Every blocked call
// is aimed so that, should the filter ever let it through, it fails or harms nothing (a mount
// target that does not exist, TIOCSTI on /dev/null): these tests run as root on real hosts.
#include "linux/fd_passing.hpp"
#include "linux/seccomp.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/audit.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace corral {
namespace {

using Profile = SeccompOptions::Profile;

// Unfiltered, mount() on it fails with ENOENT (root) or EPERM: never a real mount.
constexpr const char* kNoTarget = "/nonexistent/corral-seccomp-test";

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// What one call in the child returned: its raw result and errno when it failed.
struct Outcome {
  long ret = 0;
  int err = 0;
};

// Child side: appends each outcome to a pipe, in order.
class Recorder {
 public:
  explicit Recorder(int fd) : fd_(fd) {}
  void rec(long ret) {
    Outcome o{ret, ret < 0 ? errno : 0};
    ssize_t n = write(fd_, &o, sizeof o);
    (void)n;
  }
  void rec_raw(long ret, int err) {  // for calls that return -errno themselves
    Outcome o{ret, err};
    ssize_t n = write(fd_, &o, sizeof o);
    (void)n;
  }

 private:
  int fd_;
};

// Runs `body` in a forked child that set no_new_privs and installed the filter for `opts`
// without a listener (so opts.notify must be false). Returns the outcomes in order; an
// outcome {-1000, e} first means the install itself failed with e.
std::vector<Outcome> run_filtered(const SeccompOptions& opts,
                                  const std::function<void(Recorder&)>& body) {
  Result<SeccompProgram> prog = compile_seccomp_filter(opts);
  EXPECT_TRUE(prog.ok()) << (prog.ok() ? "" : prog.error().describe());
  if (!prog) return {};
  int p[2];
  EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    Recorder r(p[1]);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
      r.rec_raw(-1000, errno);
      _exit(1);
    }
    if (int e = install_seccomp_filter(*prog, false, nullptr)) {
      r.rec_raw(-1000, e);
      _exit(1);
    }
    body(r);
    _exit(0);
  }
  close(p[1]);
  std::vector<Outcome> out;
  Outcome o;
  while (read(p[0], &o, sizeof o) == static_cast<ssize_t>(sizeof o)) out.push_back(o);
  close(p[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  if (!out.empty() && out[0].ret == -1000)
    ADD_FAILURE() << "installing the filter failed: " << std::strerror(out[0].err);
  return out;
}

// Runs `fn` in a forked child without any filter; returns its exit status (wait status).
int run_unfiltered(const std::function<int()>& fn) {
  pid_t pid = fork();
  if (pid == 0) _exit(fn());
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

#if defined(__x86_64__)
// getpid through the i386 entry point: __NR_getpid is 20 in the 32-bit table. The compat entry
// may zero r8-r15 on return, hence the clobbers.
long int80_getpid() {
  long ret;
  asm volatile("int $0x80"
               : "=a"(ret)
               : "a"(20L)
               : "memory", "cc", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15");
  return ret;
}
#endif

SeccompOptions opts(Profile profile, bool nested, bool notify) {
  SeccompOptions o;
  o.profile = profile;
  o.allow_nested_userns = nested;
  o.notify = notify;
  return o;
}

TEST(SeccompCompile, EveryProfileCompiles) {
  for (Profile profile : {Profile::default_profile, Profile::strict})
    for (bool nested : {false, true})
      for (bool notify : {false, true}) {
        Result<SeccompProgram> prog = compile_seccomp_filter(opts(profile, nested, notify));
        ASSERT_TRUE(prog.ok()) << prog.error().describe();
        EXPECT_FALSE(prog->code.empty());
        EXPECT_LE(prog->code.size(), static_cast<size_t>(BPF_MAXINSNS));
        EXPECT_EQ(prog->needs_listener, notify);
        EXPECT_TRUE(has(prog->blocked_names, "mount"));
        EXPECT_TRUE(has(prog->blocked_names, "ptrace"));
        EXPECT_TRUE(has(prog->blocked_names, "ioctl"));
        EXPECT_TRUE(has(prog->blocked_names, "personality"));
        EXPECT_EQ(has(prog->blocked_names, "clone3"), !nested);
        EXPECT_EQ(has(prog->blocked_names, "setns"), !nested);
        EXPECT_EQ(has(prog->blocked_names, "unshare"), !nested);
        EXPECT_EQ(has(prog->blocked_names, "socket"), profile == Profile::strict);
        EXPECT_EQ(has(prog->blocked_names, "chroot"), profile == Profile::strict);
        EXPECT_TRUE(std::is_sorted(prog->blocked_names.begin(), prog->blocked_names.end()));
        EXPECT_FALSE(prog->rules.empty());
      }
}

TEST(SeccompCompile, CachedProgramIsIdentical) {
  SeccompOptions o = opts(Profile::default_profile, false, true);
  Result<SeccompProgram> a = compile_seccomp_filter(o);
  Result<SeccompProgram> b = compile_seccomp_filter(o);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->code.size(), b->code.size());
  EXPECT_EQ(std::memcmp(a->code.data(), b->code.data(), a->code.size() * sizeof(sock_filter)), 0);
  EXPECT_EQ(a->blocked_names, b->blocked_names);

  Result<SeccompProgram> strict = compile_seccomp_filter(opts(Profile::strict, false, true));
  ASSERT_TRUE(strict.ok());
  EXPECT_GT(strict->code.size(), a->code.size());
}

TEST(SeccompInstall, RefusesNotifyProgramWithoutListener) {
  Result<SeccompProgram> prog = compile_seccomp_filter(opts(Profile::default_profile, false, true));
  ASSERT_TRUE(prog.ok());
  // In a child: were the check missing, the filter would land on the test process.
  int status = run_unfiltered([&] {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 2;
    int e = install_seccomp_filter(*prog, false, nullptr);
    if (e != EINVAL) return 3;
    SeccompProgram empty;
    return install_seccomp_filter(empty, false, nullptr) == EINVAL ? 0 : 4;
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(SeccompFilter, DefaultProfileBlocksAndAllows) {
  SeccompOptions o = opts(Profile::default_profile, false, false);
  std::vector<Outcome> out = run_filtered(o, [](Recorder& r) {
    // clone first: after a successful unshare(CLONE_NEWUSER) (a broken filter) our uid would
    // be unmapped and clone would fail with EPERM of its own.
    long c = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);       // 0
    if (c == 0) _exit(0);
    r.rec(c);
    r.rec(unshare(CLONE_NEWUSER));                                          // 1
    r.rec(unshare(CLONE_NEWNET));                                           // 2
    r.rec(mount("none", kNoTarget, "tmpfs", 0, nullptr));                  // 3
    r.rec(syscall(SYS_ptrace, PTRACE_PEEKDATA, getppid(), 0, 0));           // 4
    char ch = 'x';
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);                  // not a tty
    r.rec(ioctl(null_fd, TIOCSTI, &ch));                                    // 5
    r.rec(syscall(SYS_ioctl, null_fd, (1UL << 32) | TIOCSTI, &ch));         // 6: upper bits
    r.rec(ioctl(null_fd, TIOCLINUX, &ch));                                  // 7
    r.rec(personality(ADDR_NO_RANDOMIZE));                                  // 8
    r.rec(syscall(SYS_personality, (1UL << 32) | ADDR_NO_RANDOMIZE));       // 9
    r.rec(personality(0xffffffff));                                         // 10: query
    r.rec(personality(PER_LINUX));                                          // 11
    r.rec(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0));  // 12
    io_uring_params params;
    std::memset(&params, 0, sizeof params);
    r.rec(syscall(SYS_io_uring_setup, 1, &params));                         // 13
    r.rec(syscall(SYS_bpf, 0, nullptr, 0));                                 // 14
    r.rec(syscall(SYS_clone3, nullptr, 0));                                 // 15: EINVAL unfiltered
    r.rec(getpid());                                                        // 16
    pid_t f = fork();                                                       // 17: plain clone
    if (f == 0) _exit(7);
    int st = 0;
    r.rec(f > 0 && waitpid(f, &st, 0) == f && WIFEXITED(st) && WEXITSTATUS(st) == 7 ? 0 : -1);
    r.rec(setns(0, CLONE_NEWNET));                                          // 18
    r.rec(syscall(SYS_userfaultfd, 0));                                     // 19
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    r.rec(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));               // 20
    char buf[8];
    iovec local{buf, sizeof buf}, remote{buf, sizeof buf};
    r.rec(process_vm_readv(getppid(), &local, 1, &remote, 1, 0));           // 21
    // pthread_create tries clone3 first; ENOSYS must make glibc fall back to clone.
    bool ran = false;
    std::thread t([&] { ran = true; });                                     // 22
    t.join();
    r.rec(ran ? 0 : -1);
    int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0);                 // 23: strict only
    r.rec(s >= 0 || errno != EPERM ? 0 : -1);
    r.rec(syscall(0x40000000 | 39));                                        // 24: x32 getpid
    // Last: were it let through, this process would be traced by the test runner.
    r.rec(ptrace(PTRACE_TRACEME, 0, nullptr, nullptr));                     // 25
  });
  ASSERT_EQ(out.size(), 26u);
  auto eperm = [&](size_t i) {
    EXPECT_EQ(out[i].ret, -1) << "call " << i;
    EXPECT_EQ(out[i].err, EPERM) << "call " << i << ": " << std::strerror(out[i].err);
  };
  auto ok = [&](size_t i) {
    EXPECT_GE(out[i].ret, 0) << "call " << i << ": " << std::strerror(out[i].err);
  };
  for (size_t i : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14}) eperm(i);
  ok(10);
  ok(11);
  EXPECT_EQ(out[15].ret, -1);
  EXPECT_EQ(out[15].err, ENOSYS) << std::strerror(out[15].err);
  ok(16);
  ok(17);
  for (size_t i : {18, 19, 20, 21}) eperm(i);
  ok(22);
  ok(23);
#if defined(__x86_64__)
  EXPECT_EQ(out[24].ret, -1);
  EXPECT_EQ(out[24].err, ENOSYS);
#endif
  eperm(25);
}

#if defined(__x86_64__)
TEST(SeccompFilter, ThirtyTwoBitEntryIsClosed) {
  // Without a filter: is there an i386 entry at all? (ia32_emulation=0 makes int 0x80 fault.)
  int status = run_unfiltered([] { return int80_getpid() == getpid() ? 0 : 1; });
  if (!WIFEXITED(status)) {
    // No i386 entry at all (ia32_emulation=0): the 32-bit door is closed by the kernel itself.
    SUCCEED() << "this kernel has no i386 syscall entry";
    return;
  }
  ASSERT_EQ(WEXITSTATUS(status), 0) << "int $0x80 getpid does not return our pid unfiltered";

  std::vector<Outcome> out = run_filtered(opts(Profile::default_profile, false, false),
                                          [](Recorder& r) {
                                            long ret = int80_getpid();
                                            r.rec_raw(ret, ret < 0 ? static_cast<int>(-ret) : 0);
                                          });
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].ret, -ENOSYS);
}
#endif

TEST(SeccompFilter, StrictProfileNarrowsSocketsAndDevices) {
  char dir[] = "/tmp/corral-seccomp-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string base = dir;
  std::vector<Outcome> out = run_filtered(opts(Profile::strict, false, false), [&](Recorder& r) {
    r.rec(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0));                 // 0
    r.rec(socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0));                  // 1
    r.rec(socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0));                // 2
    r.rec(socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));               // 3
    r.rec(socket(200, SOCK_STREAM | SOCK_CLOEXEC, 0));                     // 4: future family
    r.rec(syscall(SYS_socket, (1UL << 32) | AF_NETLINK, SOCK_RAW, 0));     // 5: upper bits
    r.rec(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));                 // 6
    r.rec(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));                  // 7
    int s6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);               // 8: may lack ipv6
    r.rec(s6 >= 0 || errno != EPERM ? 0 : -1);
    int sv[2];
    r.rec(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));         // 9
    r.rec(socketpair(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0, sv));         // 10
    r.rec(mknod((base + "/null").c_str(), S_IFCHR | 0600, makedev(1, 3)));  // 11
    r.rec(mknodat(AT_FDCWD, (base + "/blk").c_str(), S_IFBLK | 0600, makedev(7, 0)));  // 12
    r.rec(mknod((base + "/fifo").c_str(), S_IFIFO | 0600, 0));              // 13
    r.rec(chroot("/"));                                                     // 14
    r.rec(mount("none", kNoTarget, "tmpfs", 0, nullptr));                  // 15: default rules
    r.rec(syscall(SYS_kcmp, getpid(), getpid(), 0, 0, 0));                  // 16
  });
  for (const char* name : {"/fifo", "/null", "/blk"}) unlink((base + name).c_str());
  rmdir(dir);
  ASSERT_EQ(out.size(), 17u);
  for (size_t i : {0, 1, 2, 3, 4, 5, 10, 11, 12, 14, 15, 16}) {
    EXPECT_EQ(out[i].ret, -1) << "call " << i;
    EXPECT_EQ(out[i].err, EPERM) << "call " << i << ": " << std::strerror(out[i].err);
  }
  for (size_t i : {6, 7, 8, 9, 13})
    EXPECT_GE(out[i].ret, 0) << "call " << i << ": " << std::strerror(out[i].err);
}

TEST(SeccompFilter, ExtraBlockedCallsFailWithEperm) {
  SeccompOptions o = opts(Profile::default_profile, false, false);
  o.extra_blocked = {"getcwd", "clone3", "ioctl"};  // clone3 keeps its ENOSYS rule
  auto prog = compile_seccomp_filter(o);
  ASSERT_TRUE(prog.ok()) << prog.error().describe();
  EXPECT_TRUE(has(prog->blocked_names, "getcwd"));
  // A different extra list is a different program (the cache compares the list).
  auto plain = compile_seccomp_filter(opts(Profile::default_profile, false, false));
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(has(plain->blocked_names, "getcwd"));
  std::vector<Outcome> out = run_filtered(o, [&](Recorder& r) {
    char buf[4096];
    r.rec(syscall(SYS_getcwd, buf, sizeof buf));  // 0
    r.rec(syscall(SYS_getpid));                    // 1
    r.rec(syscall(SYS_clone3, nullptr, 0));        // 2
    r.rec(syscall(SYS_ioctl, 0, FIONREAD, nullptr));  // 3: blocked outright now
  });
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].ret, -1);
  EXPECT_EQ(out[0].err, EPERM) << std::strerror(out[0].err);
  EXPECT_GT(out[1].ret, 0);
  EXPECT_EQ(out[2].err, ENOSYS) << std::strerror(out[2].err);
  EXPECT_EQ(out[3].err, EPERM) << std::strerror(out[3].err);
}

TEST(SeccompCompile, UnknownExtraSyscallIsInvalidInput) {
  SeccompOptions o;
  o.extra_blocked = {"getcwd", "corral_no_such_call"};
  auto prog = compile_seccomp_filter(o);
  ASSERT_FALSE(prog.ok());
  EXPECT_EQ(prog.error().code, Errc::invalid_input);
  EXPECT_NE(prog.error().message.find("corral_no_such_call"), std::string::npos);
}

TEST(SeccompFilter, NestedUserNamespacesWhenAllowed) {
  // Only meaningful where this user may create a user namespace at all.
  int status = run_unfiltered([] { return unshare(CLONE_NEWUSER) == 0 ? 0 : 1; });
  // corral needs user namespaces for every run; `corral doctor` reports their absence.
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "user namespaces are not available to this user here";

  SeccompOptions o = opts(Profile::default_profile, true, false);
  std::vector<Outcome> out = run_filtered(o, [](Recorder& r) {
    r.rec(syscall(SYS_clone3, nullptr, 0));                        // 0: reaches the kernel
    r.rec(mount("none", kNoTarget, "tmpfs", 0, nullptr));          // 1: mounts stay blocked
    r.rec(syscall(SYS_ptrace, PTRACE_PEEKDATA, getppid(), 0, 0));  // 2: and the rest
    r.rec(unshare(CLONE_NEWUSER));                                 // 3
  });
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].err, EINVAL) << std::strerror(out[0].err);
  EXPECT_EQ(out[1].err, EPERM);
  EXPECT_EQ(out[2].err, EPERM);
  EXPECT_EQ(out[3].ret, 0) << std::strerror(out[3].err);
}

// Sends/receives one fd over a unix socket (SCM_RIGHTS), with the project's helpers.
bool send_fd(int sock, int fd) {
  char byte = 0;
  return send_with_fd(sock, &byte, 1, fd) == 1;
}

int recv_fd(int sock) {
  char byte;
  int fd = -1;
  return recv_with_fd(sock, &byte, 1, &fd) == 1 ? fd : -1;
}

// Forks a child that installs the notify filter, hands its listener to us over `sock` and then
// runs `body`, writing outcomes back over the same socket.
pid_t spawn_notified(const SeccompProgram& prog, int sock, int parent_end,
                     const std::function<void(Recorder&)>& body) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  close(parent_end);
  Recorder r(sock);
  int listener = -1;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(2);
  if (install_seccomp_filter(prog, true, &listener) != 0) _exit(3);
  if (fcntl(listener, F_GETFD) != FD_CLOEXEC) _exit(4);
  if (!send_fd(sock, listener)) _exit(5);
  close(listener);
  body(r);
  _exit(0);
}

// Waits up to 5 s for a trapped call and handles it.
std::optional<SeccompEvent> next_event(SeccompMonitor& m) {
  pollfd p{m.fd(), POLLIN, 0};
  if (poll(&p, 1, 5000) <= 0) return std::nullopt;
  return m.handle_one();
}

TEST(SeccompMonitor, ObservesAndRefusesTrappedCalls) {
  Result<SeccompProgram> prog = compile_seccomp_filter(opts(Profile::default_profile, false, true));
  ASSERT_TRUE(prog.ok()) << prog.error().describe();
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  pid_t pid = spawn_notified(*prog, sv[1], sv[0], [](Recorder& r) {
    r.rec(mount("none", kNoTarget, "tmpfs", 0, nullptr));
    char ch = 'x';
    r.rec(ioctl(open("/dev/null", O_RDONLY | O_CLOEXEC), TIOCSTI, &ch));
    r.rec(syscall(SYS_clone3, nullptr, 0));  // ENOSYS from the kernel, not the supervisor
    r.rec(getpid());
  });
  close(sv[1]);
  int listener = recv_fd(sv[0]);
  ASSERT_GE(listener, 0);
  SeccompMonitor monitor(listener);
  auto before = std::chrono::system_clock::now();

  std::optional<SeccompEvent> ev = next_event(monitor);
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->syscall, "mount");
  EXPECT_EQ(ev->pid, pid);
  EXPECT_EQ(ev->nr, SYS_mount);
#if defined(__x86_64__)
  EXPECT_EQ(ev->arch, static_cast<std::uint32_t>(AUDIT_ARCH_X86_64));
#endif
  EXPECT_GE(ev->time, before);

  ev = next_event(monitor);
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->syscall, "ioctl");
  EXPECT_EQ(ev->args[1] & 0xffffffffU, static_cast<std::uint64_t>(TIOCSTI));

  std::vector<Outcome> out;
  Outcome o;
  while (read(sv[0], &o, sizeof o) == static_cast<ssize_t>(sizeof o)) out.push_back(o);
  close(sv[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].err, EPERM);
  EXPECT_EQ(out[1].err, EPERM);
  EXPECT_EQ(out[2].err, ENOSYS);
  EXPECT_GT(out[3].ret, 0);
  // Nobody uses the filter now: no event, and no hang.
  EXPECT_FALSE(monitor.handle_one().has_value());
}

TEST(SeccompMonitor, CallerThatDiesIsNotAwaited) {
  Result<SeccompProgram> prog = compile_seccomp_filter(opts(Profile::default_profile, false, true));
  ASSERT_TRUE(prog.ok());
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  pid_t pid = spawn_notified(*prog, sv[1], sv[0], [](Recorder& r) {
    r.rec(mount("none", kNoTarget, "tmpfs", 0, nullptr));  // waits for an answer that never comes
  });
  close(sv[1]);
  int listener = recv_fd(sv[0]);
  ASSERT_GE(listener, 0);
  SeccompMonitor monitor(listener);
  pollfd p{monitor.fd(), POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 5000), 1);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_FALSE(monitor.handle_one().has_value());
  close(sv[0]);
}

TEST(SeccompCompile, WatchedWritesSkipWhatTheProfileBlocks) {
  SeccompOptions o = opts(Profile::default_profile, false, true);
  o.watch_writes = true;
  o.extra_blocked = {"unlinkat"};
  Result<SeccompProgram> prog = compile_seccomp_filter(o);
  ASSERT_TRUE(prog.ok()) << prog.error().describe();
  auto watched = [&](long nr) {
    return std::binary_search(prog->watched_nrs.begin(), prog->watched_nrs.end(), nr);
  };
  EXPECT_TRUE(watched(SYS_openat));
  EXPECT_TRUE(watched(SYS_renameat2));
  EXPECT_TRUE(watched(SYS_fchmodat));
  EXPECT_FALSE(watched(SYS_unlinkat));  // blocked: its notifications mean "refused"
  EXPECT_FALSE(watched(SYS_mount));
  // Without a supervisor there is nobody to watch for.
  o.notify = false;
  Result<SeccompProgram> plain = compile_seccomp_filter(o);
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->watched_nrs.empty());
}

TEST(SeccompMonitor, WatchedWritesContinueAndSayWhereTheyLand) {
  SeccompOptions o = opts(Profile::default_profile, false, true);
  o.watch_writes = true;
  Result<SeccompProgram> prog = compile_seccomp_filter(o);
  ASSERT_TRUE(prog.ok()) << prog.error().describe();
  char tmpl[] = "/tmp/corral-watch-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string target = dir + "/made";
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  pid_t pid = spawn_notified(*prog, sv[1], sv[0], [&](Recorder& r) {
    r.rec(open("/etc/hostname", O_RDONLY | O_CLOEXEC));  // a read: not trapped
    r.rec(chdir(dir.c_str()));
    r.rec(open("made", O_WRONLY | O_CREAT | O_CLOEXEC, 0600));  // relative to the cwd
    r.rec(mkdir("sub/../d", 0700));
  });
  close(sv[1]);
  int listener = recv_fd(sv[0]);
  ASSERT_GE(listener, 0);
  SeccompMonitor monitor(listener, prog->watched_nrs);

  std::optional<SeccompEvent> ev = next_event(monitor);
  ASSERT_TRUE(ev.has_value());
  EXPECT_FALSE(ev->refused);
  EXPECT_EQ(ev->syscall, "openat");
  ASSERT_TRUE(ev->write.has_value());
  EXPECT_EQ(ev->write->path, target);
  EXPECT_EQ(ev->write->op, "openat(O_WRONLY|O_CREAT)");
  EXPECT_FALSE(ev->write->refused);  // a writable directory

  ev = next_event(monitor);
  ASSERT_TRUE(ev.has_value());
  EXPECT_TRUE(ev->syscall == "mkdir" || ev->syscall == "mkdirat") << ev->syscall;
  ASSERT_TRUE(ev->write.has_value());
  EXPECT_EQ(ev->write->path, dir + "/d");

  std::vector<Outcome> out;
  Outcome oc;
  while (read(sv[0], &oc, sizeof oc) == static_cast<ssize_t>(sizeof oc)) out.push_back(oc);
  close(sv[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_GE(out[0].ret, 0);
  EXPECT_GE(out[2].ret, 0) << std::strerror(out[2].err);  // the kernel carried the call out
  EXPECT_EQ(access(target.c_str(), F_OK), 0);
  // mkdir("sub/../d") fails in the kernel (no "sub"): watched calls keep their real outcome.
  EXPECT_EQ(out[3].err, ENOENT);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace corral
