// FICLONE with a copy_file_range fallback; renameat2(RENAME_EXCHANGE).
#include "linux/file_clone.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

namespace corral::fsx {

int clone_or_copy(int in, int out, off_t size) {
  if (size == 0) return 0;
  if (ioctl(out, FICLONE, in) == 0) return 0;
  off_t in_off = 0, out_off = 0;
  while (in_off < size) {
    ssize_t n = copy_file_range(in, &in_off, out, &out_off, static_cast<size_t>(size - in_off), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EXDEV && errno != EINVAL && errno != EOPNOTSUPP && errno != ENOSYS) return errno;
      // Fall back to read/write (e.g. across filesystems on older kernels).
      char buf[1 << 16];
      for (;;) {
        ssize_t r = pread(in, buf, sizeof buf, in_off);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return errno;
        if (r == 0) return 0;
        ssize_t done = 0;
        while (done < r) {
          ssize_t w = pwrite(out, buf + done, static_cast<size_t>(r - done), out_off);
          if (w < 0 && errno == EINTR) continue;
          if (w < 0) return errno;
          done += w;
          out_off += w;
        }
        in_off += r;
      }
    }
    if (n == 0) break;  // the file shrank under us
  }
  return 0;
}

int exchange(const char* a, const char* b) {
  return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0 ? 0 : errno;
}

}  // namespace corral::fsx
