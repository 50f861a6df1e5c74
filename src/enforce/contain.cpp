// The sandbox child's setup sequence. child_main() reads top to bottom as what the sandbox is:
// ids, namespaces, the new root, privileges; then init.cpp takes over as PID 1.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <linux/capability.h>
#include <linux/mount.h>

#include "enforce/child_config.hpp"
#include "enforce/egress.hpp"
#include "enforce/init.hpp"
#include "enforce/messages.hpp"
#include "linux/identity.hpp"
#include "linux/landlock.hpp"
#include "linux/fd_passing.hpp"
#include "linux/seccomp.hpp"
#include "linux/mount.hpp"
#include "linux/netdev.hpp"
#include "linux/overlay.hpp"

namespace corral {
namespace {

constexpr const char* kStaging = "/tmp";           // our mount namespace's /tmp, never the host's
constexpr const char* kNewRoot = "/tmp/root";
constexpr const char* kEmptyFile = "/tmp/empty";   // source of deny_file binds

// Setup timings for profiling (CORRAL_TRACE_SETUP=1): microseconds since the previous step.
void trace(const ChildConfig& c, const char* step) {
  if (!c.trace) return;
  static timespec last;
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  long us = last.tv_sec ? (now.tv_sec - last.tv_sec) * 1000000 + (now.tv_nsec - last.tv_nsec) / 1000 : 0;
  last = now;
  char line[96];
  int n = snprintf(line, sizeof line, "corral-trace: %-12s +%ld us\n", step, us);
  if (n > 0) {
    ssize_t w = write(2, line, static_cast<size_t>(n));
    (void)w;
  }
}

[[noreturn]] void fail(const ChildConfig& c, SetupStep step, int err, std::uint32_t op_index = 0) {
  ChildMsg msg;
  std::memset(&msg, 0, sizeof msg);
  msg.type = ChildMsgType::setup_failed;
  msg.step = step;
  msg.err = err;
  msg.op_index = op_index;
  ssize_t n = send(c.ctl_fd, &msg, sizeof msg, MSG_NOSIGNAL);
  (void)n;
  _exit(125);
}

void check(const ChildConfig& c, SetupStep step, int err, std::uint32_t op_index = 0) {
  if (err != 0) fail(c, step, err, op_index);
}

void wait_for_parent(const ChildConfig& c) {
  ParentMsg msg;
  ssize_t n;
  do {
    n = recv(c.ctl_fd, &msg, sizeof msg, 0);
  } while (n < 0 && errno == EINTR);
  // EOF: the parent died before telling us to go; PDEATHSIG may have been set too late.
  if (n != static_cast<ssize_t>(sizeof msg)) _exit(125);
}

int make_dev(const char* dev) {
  static const char* const kNodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
  char host[64], inside[PATH_MAX];
  if (int e = mnt::mount_tmpfs(dev, 0755, MS_NOSUID | MS_NOEXEC, "size=64k")) return e;
  for (const char* node : kNodes) {
    snprintf(host, sizeof host, "/dev/%s", node);
    snprintf(inside, sizeof inside, "%s/%s", dev, node);
    if (int e = mnt::ensure_mountpoint(inside, false)) return e;
    if (int e = mnt::bind(host, inside)) return e;
  }
  snprintf(inside, sizeof inside, "%s/pts", dev);
  if (int e = mnt::ensure_mountpoint(inside, true)) return e;
  if (int e = mnt::mount_devpts(inside)) return e;
  snprintf(inside, sizeof inside, "%s/shm", dev);
  if (int e = mnt::ensure_mountpoint(inside, true)) return e;
  if (int e = mnt::mount_tmpfs(inside, 01777, MS_NOSUID | MS_NODEV, nullptr)) return e;
  static const char* const kLinks[][2] = {{"ptmx", "pts/ptmx"},
                                          {"fd", "/proc/self/fd"},
                                          {"stdin", "/proc/self/fd/0"},
                                          {"stdout", "/proc/self/fd/1"},
                                          {"stderr", "/proc/self/fd/2"}};
  for (const auto& link : kLinks) {
    snprintf(inside, sizeof inside, "%s/%s", dev, link[0]);
    if (symlink(link[1], inside) != 0) return errno;
  }
  return 0;
}

bool exists(const char* path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

// Executes one mount op, with paths relative to the new root (the cwd).
int apply_op(const ChildConfig& c, size_t i) {
  const MountOp& op = c.plan.ops[i];
  const char* target = c.rel_targets[i].c_str();
  switch (op.kind) {
    case MountOpKind::root_readonly:
      return 0;  // attached as the new root before the loop
    case MountOpKind::tmpfs:
      if (int e = mnt::ensure_mountpoint(target, true)) return e;
      return mnt::mount_tmpfs(target, op.mode, MS_NOSUID | MS_NODEV, nullptr);
    case MountOpKind::proc:
      return mnt::mount_proc(target);
    case MountOpKind::sysfs:
      // Fails when the host's sysfs is not fully visible to us; the read-only copy of the
      // host's /sys from the root clone stays in place then.
      (void)mnt::mount_sysfs(target);
      return 0;
    case MountOpKind::dev:
      return make_dev(target);
    case MountOpKind::bind_rw:
    case MountOpKind::bind_ro:
    case MountOpKind::overlay:
      if (int e = mnt::ensure_mountpoint(target, op.is_dir)) return e;
      return mnt::attach_tree(c.source_fds[i], target);
    case MountOpKind::deny_dir:
      if (int e = mnt::ensure_mountpoint(target, true)) return e;
      return mnt::mount_tmpfs(target, op.mode, MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=16k");
    case MountOpKind::deny_file:
      if (int e = mnt::ensure_mountpoint(target, false)) return e;
      if (int e = mnt::bind(kEmptyFile, target)) return e;
      return mnt::remount_readonly(target);
    case MountOpKind::readonly_self:
      if (op.optional && !exists(target)) return 0;
      if (int e = mnt::bind(target, target)) return e;
      return mnt::remount_readonly(target);
    case MountOpKind::file_content: {
      if (op.optional && !exists(target)) return 0;
      char staged[64];  // in the private staging tmpfs, like kEmptyFile
      snprintf(staged, sizeof staged, "%s/content-%zu", kStaging, i);
      int fd = open(staged, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) return errno;
      ssize_t w = write(fd, op.source.data(), op.source.size());
      close(fd);
      if (w != static_cast<ssize_t>(op.source.size())) return w < 0 ? errno : EIO;
      if (int e = mnt::bind(staged, target)) return e;
      return mnt::remount_readonly(target);
    }
  }
  return EINVAL;
}

// Builds the sandbox's root from the mount plan and pivots into it.
void build_root(ChildConfig& c) {
  check(c, SetupStep::mount_private, mnt::make_private());

  trace(c, "private");
  // Clone every bind source first, while the host's view (including its /tmp) is still visible.
  for (size_t i = 0; i < c.plan.ops.size(); ++i) {
    const MountOp& op = c.plan.ops[i];
    if (op.kind == MountOpKind::overlay) {
      // Its layers are resolved now, in the host's view; the mount is attached in place later.
      int fd = mnt::overlay_detached(op.source.c_str(), op.upper.c_str(), op.work.c_str());
      if (fd < 0) fail(c, SetupStep::clone_sources, -fd, static_cast<std::uint32_t>(i));
      c.source_fds[i] = fd;
      continue;
    }
    bool is_bind = op.kind == MountOpKind::root_readonly || op.kind == MountOpKind::bind_rw ||
                   op.kind == MountOpKind::bind_ro;
    if (!is_bind) continue;
    int fd = mnt::clone_tree(op.source.c_str());
    if (fd < 0) fail(c, SetupStep::clone_sources, -fd, static_cast<std::uint32_t>(i));
    unsigned long long attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    if (op.kind != MountOpKind::bind_rw) attrs |= MOUNT_ATTR_RDONLY;
    check(c, SetupStep::clone_sources, mnt::set_tree_attrs(fd, attrs, 0), static_cast<std::uint32_t>(i));
    c.source_fds[i] = fd;
  }

  trace(c, "clone-trees");
  // A private staging tmpfs holds the new root's mount point and the empty deny-file source.
  check(c, SetupStep::staging, mnt::mount_tmpfs(kStaging, 0700, MS_NOSUID | MS_NODEV, nullptr));
  check(c, SetupStep::staging, mkdir(kNewRoot, 0755) == 0 ? 0 : errno);
  int empty = open(kEmptyFile, O_CREAT | O_WRONLY | O_CLOEXEC, 0);
  check(c, SetupStep::staging, empty >= 0 ? 0 : errno);
  close(empty);
  check(c, SetupStep::staging, mnt::attach_tree(c.source_fds[0], kNewRoot));
  check(c, SetupStep::staging, chdir(kNewRoot) == 0 ? 0 : errno);

  trace(c, "staging");
  for (size_t i = 1; i < c.plan.ops.size(); ++i) {
    check(c, SetupStep::mount_op, apply_op(c, i), static_cast<std::uint32_t>(i));
    trace(c, mount_op_kind_name(c.plan.ops[i].kind));
  }
  for (size_t i = 0; i < c.rel_readonly_last.size(); ++i)
    check(c, SetupStep::remount_readonly, mnt::remount_readonly(c.rel_readonly_last[i].c_str()),
          static_cast<std::uint32_t>(i));
  for (int& fd : c.source_fds) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  check(c, SetupStep::pivot_root, mnt::pivot_into("."));
}

// Loads the seccomp filter (last: it may forbid what the steps before needed) and hands its
// notification fd to the parent, which answers every trapped call with EPERM and records it.
// Init must not keep the fd: a sandboxed process holding it could let its own calls through.
void load_seccomp(const ChildConfig& c) {
  if (!c.seccomp) return;
  int listener = -1;
  check(c, SetupStep::seccomp, install_seccomp_filter(*c.seccomp, c.seccomp_listener, &listener));
  if (listener < 0) return;
  ChildMsg msg;
  std::memset(&msg, 0, sizeof msg);
  msg.type = ChildMsgType::seccomp_listener;
  ssize_t n = send_with_fd(c.ctl_fd, &msg, sizeof msg, listener);
  int err = n == static_cast<ssize_t>(sizeof msg) ? 0 : (n < 0 ? errno : EIO);
  close(listener);
  check(c, SetupStep::seccomp, err);
}

}  // namespace

void child_main(ChildConfig& c) {
  // If corral dies (even by SIGKILL), so does this init, and with it the whole pid namespace.
  if (!c.persistent_main) prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Without this copy of the parent's end, a parent that died before PDEATHSIG was set would
  // leave wait_for_parent() blocked instead of reading EOF.
  if (c.parent_ctl_fd >= 0) close(c.parent_ctl_fd);
  if (c.audit_fd >= 0) close(c.audit_fd);
  trace(c, "cloned");
  check(c, SetupStep::id_maps, ident::write_self_id_maps(c.uid, c.gid));
  trace(c, "id-maps");
  wait_for_parent(c);
  trace(c, "parent-go");

  // The parent has placed us in our cgroup by now; make it the cgroup namespace's root.
  check(c, SetupStep::cgroup_ns, unshare(CLONE_NEWCGROUP) == 0 ? 0 : errno);
  check(c, SetupStep::hostname,
        sethostname(c.hostname.data(), c.hostname.size()) == 0 ? 0 : errno);
  if (c.private_network) check(c, SetupStep::loopback, netdev::bring_up_loopback());
  // Filtered egress: the proxy's listening sockets are opened here, in our network namespace.
  if (c.egress_specs) check(c, SetupStep::egress_bridge, send_egress_listeners(c));
  trace(c, "uts-net");

  build_root(c);
  trace(c, "root");

  // Privileges, in minijail's order: capabilities, no_new_privs, Landlock, seccomp last. Init
  // runs under all of them too, so nothing in the sandbox holds more than the command.
  check(c, SetupStep::securebits, ident::lock_securebits());
  // A persistent sandbox's supervisor keeps CAP_SYS_PTRACE (in the sandbox's user namespace
  // only): reading the memory of a command that made itself non-dumpable, to check the paths
  // of its trapped writes. Each command drops it before anything else (supervisor.cpp).
  check(c, SetupStep::drop_capabilities,
        ident::drop_all_capabilities(c.persistent_main ? CAP_SYS_PTRACE : -1));
  check(c, SetupStep::no_new_privs, ident::set_no_new_privs());
  ident::set_non_dumpable();
  if (c.persistent_main) {
    c.persistent_main(c);  // the supervisor: Landlock and seccomp go on each command it forks
    _exit(125);
  }
  int failed_rule = -1;
  int landlock_err = landlock::apply_ruleset(c.landlock, &failed_rule);
  trace(c, "privileges");
  check(c, SetupStep::landlock, landlock_err, static_cast<std::uint32_t>(failed_rule + 1));
  if (c.landlock_beacon) {
    // /proc is mounted writable and never in Landlock's writable set: refused, and logged
    // with this process's pid and domain. Opening writes nothing even if it were allowed.
    int fd = open("/proc/self/comm", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) close(fd);
  }
  trace(c, "landlock");
  load_seccomp(c);
  trace(c, "seccomp");

  run_init(c);
}

}  // namespace corral
