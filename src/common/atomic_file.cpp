// Atomic file replacement with a temporary sibling, fsync and rename(2).
#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace corral {

Result<void> write_file_atomic(const std::string& path, const std::string& content, unsigned mode) {
  auto io_error = [&](const std::string& what, int err) {
    Error e = make_error(Errc::io_error, what + ": " + std::strerror(err));
    e.file = path;
    return e;
  };
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return io_error("cannot create a temporary file beside it", errno);
  size_t off = 0;
  while (off < content.size()) {
    ssize_t n = write(fd, content.data() + off, content.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      close(fd);
      unlink(tmp.c_str());
      return io_error("cannot write", err);
    }
    off += static_cast<size_t>(n);
  }
  if (fchmod(fd, mode) != 0 || fsync(fd) != 0) {
    int err = errno;
    close(fd);
    unlink(tmp.c_str());
    return io_error("cannot finish writing", err);
  }
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    return io_error("cannot rename into place", err);
  }
  return {};
}

}  // namespace corral
