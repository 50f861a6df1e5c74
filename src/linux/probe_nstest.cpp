// The one probe that forks: a child really unshares a user namespace and each namespace kind,
// and (for doctor) mounts overlayfs and uses the new mount API inside it, then reports errnos.
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>

#include "linux/probe_detail.hpp"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080  // Linux 5.6; older libc headers lack it
#endif

namespace corral::probe {
namespace {

constexpr int kKinds = static_cast<int>(std::size(kNamespaceKinds));
constexpr int kCloneFlags[kKinds] = {CLONE_NEWNS,  CLONE_NEWPID,    CLONE_NEWNET, CLONE_NEWIPC,
                                     CLONE_NEWUTS, CLONE_NEWCGROUP, CLONE_NEWTIME};

// Sent child -> parent through a pipe; plain ints so the child needs no allocation.
struct ChildReport {
  int userns = -1;
  int kinds[kKinds] = {};
  int overlay = -1;
  int mount_api = -1;
};

// The child runs between fork and _exit: only async-signal-safe calls, no allocation.
int err_of(long rc) { return rc == 0 ? 0 : errno; }

char* format_uint(char* p, unsigned v) {
  char tmp[16];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) *p++ = tmp[--n];
  return p;
}

int write_file(const char* path, const char* data, size_t len) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  int err = write(fd, data, len) == static_cast<ssize_t>(len) ? 0 : errno;
  close(fd);
  return err;
}

// Maps our own uid/gid to root in the new namespace: without a mapping, files created on a
// tmpfs mounted inside could not be owned by anyone (EOVERFLOW).
int map_self(unsigned uid, unsigned gid) {
  char buf[48];
  char* p = buf;
  *p++ = '0';
  *p++ = ' ';
  p = format_uint(p, uid);
  *p++ = ' ';
  *p++ = '1';
  *p++ = '\n';
  if (int e = write_file("/proc/self/uid_map", buf, p - buf)) return e;
  if (int e = write_file("/proc/self/setgroups", "deny", 4); e != 0 && e != ENOENT) return e;
  p = buf;
  *p++ = '0';
  *p++ = ' ';
  p = format_uint(p, gid);
  *p++ = ' ';
  *p++ = '1';
  *p++ = '\n';
  return write_file("/proc/self/gid_map", buf, p - buf);
}

// Overlay on a private tmpfs over /tmp: what a copy-on-write workspace does. The mount namespace
// is private (rprivate below), so nothing here is visible outside the child.
int test_overlay() {
  if (mount("tmpfs", "/tmp", "tmpfs", 0, "size=1m") != 0) return errno;
  const char* dirs[] = {"/tmp/l", "/tmp/u", "/tmp/w", "/tmp/m", "/tmp/t"};
  for (const char* d : dirs)
    if (mkdir(d, 0700) != 0) return errno;
  return err_of(
      mount("overlay", "/tmp/m", "overlay", 0, "lowerdir=/tmp/l,upperdir=/tmp/u,workdir=/tmp/w"));
}

// The sequence the enforcer uses for read-only binds: clone a tree, make it read-only, attach it.
int test_mount_api() {
  int fd = static_cast<int>(
      syscall(SYS_open_tree, AT_FDCWD, "/tmp/l", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
  if (fd < 0) return errno;
  struct mount_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.attr_set = MOUNT_ATTR_RDONLY;
  int err = err_of(syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH, &attr, sizeof attr));
  if (err == 0)
    err = err_of(syscall(SYS_move_mount, fd, "", AT_FDCWD, "/tmp/t", MOVE_MOUNT_F_EMPTY_PATH));
  close(fd);
  return err;
}

ChildReport child_tests(bool mounts, unsigned uid, unsigned gid) {
  ChildReport r;
  for (int& k : r.kinds) k = -1;
  r.userns = err_of(unshare(CLONE_NEWUSER));
  if (r.userns == 0) r.userns = map_self(uid, gid);
  // Without a user namespace only root can go on; the result then says what root could do.
  if (r.userns != 0 && uid != 0) return r;
  for (int i = 0; i < kKinds; ++i) r.kinds[i] = err_of(unshare(kCloneFlags[i]));
  if (!mounts || r.kinds[0] != 0) return r;
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    r.overlay = errno;
    return r;
  }
  r.overlay = test_overlay();
  if (r.overlay == 0) r.mount_api = test_mount_api();
  return r;
}

}  // namespace

NsTest run_ns_test(bool mounts) {
  NsTest result;
  unsigned uid = geteuid(), gid = getegid();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    result.userns = errno;
    return result;
  }
  pid_t pid = fork();
  if (pid < 0) {
    result.userns = errno;
    close(fds[0]);
    close(fds[1]);
    return result;
  }
  if (pid == 0) {
    close(fds[0]);
    ChildReport r = child_tests(mounts, uid, gid);
    ssize_t n = write(fds[1], &r, sizeof r);
    _exit(n == static_cast<ssize_t>(sizeof r) ? 0 : 1);
  }
  close(fds[1]);
  ChildReport r;
  size_t got = 0;
  while (got < sizeof r) {
    ssize_t n = read(fds[0], reinterpret_cast<char*>(&r) + got, sizeof r - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(fds[0]);
  while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  if (got != sizeof r) {
    result.userns = ECHILD;  // the child died before reporting: treat as "could not test"
    return result;
  }
  result.userns = r.userns;
  for (int i = 0; i < kKinds; ++i) result.kinds[kNamespaceKinds[i]] = r.kinds[i];
  result.overlay = r.overlay;
  result.mount_api = r.mount_api;
  return result;
}

}  // namespace corral::probe
