// uid/gid maps written by the child itself (an unprivileged caller may map only its own ids, so
// no parent round trip is needed), and the capability drop done with prctl/capset directly.
#include "linux/identity.hpp"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace corral::ident {
namespace {

int write_text(const char* path, const char* text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  size_t len = strlen(text);
  ssize_t n = write(fd, text, len);
  int err = n == static_cast<ssize_t>(len) ? 0 : (n < 0 ? errno : EIO);
  close(fd);
  return err;
}

}  // namespace

int write_self_id_maps(uid_t uid, gid_t gid) {
  char line[64];
  if (int e = write_text("/proc/self/setgroups", "deny")) return e;
  snprintf(line, sizeof line, "%u %u 1\n", gid, gid);
  if (int e = write_text("/proc/self/gid_map", line)) return e;
  snprintf(line, sizeof line, "%u %u 1\n", uid, uid);
  return write_text("/proc/self/uid_map", line);
}

int drop_all_capabilities(int keep) {
  // The bounding set first: later steps lose CAP_SETPCAP.
  for (int cap = 0; cap <= 63; ++cap) {
    if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0) break;  // past the last known capability
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) return errno;
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) return errno;
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2];
  std::memset(data, 0, sizeof data);
  if (keep >= 0 && keep < 64) {
    data[keep / 32].permitted = data[keep / 32].effective = 1u << (keep % 32);
  }
  if (syscall(SYS_capset, &hdr, data) != 0) return errno;
  return 0;
}

int clear_capabilities() {
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) return errno;
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2];
  std::memset(data, 0, sizeof data);
  return syscall(SYS_capset, &hdr, data) == 0 ? 0 : errno;
}

int set_no_new_privs() { return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0 : errno; }

int lock_securebits() {
  unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                       SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
                       SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
  return prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) == 0 ? 0 : errno;
}

int set_non_dumpable() { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 ? 0 : errno; }

}  // namespace corral::ident
