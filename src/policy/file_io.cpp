// Reads policy inputs whole, turning every failure into an Error that names the file.
#include "policy/file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace corral::policy_io {
namespace {

// A policy is a few kilobytes; refusing huge inputs keeps a typo (a device, a log) harmless.
constexpr off_t kMaxPolicyBytes = 16 * 1024 * 1024;

Error file_error(Errc code, const std::string& path, std::string message) {
  Error e = make_error(code, std::move(message));
  e.file = path;
  return e;
}

}  // namespace

Result<std::string> read_text_file(const std::string& path, const char* what) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR)
      return file_error(Errc::not_found, path, std::string(what) + " does not exist");
    return file_error(Errc::io_error, path,
                      std::string("cannot open ") + what + ": " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > kMaxPolicyBytes) {
    bool is_dir = S_ISDIR(st.st_mode);
    ::close(fd);
    if (is_dir) return file_error(Errc::io_error, path, std::string(what) + " is a directory");
    return file_error(Errc::io_error, path,
                      std::string(what) + " is not a regular file of at most 16 MiB");
  }
  std::string text;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return file_error(Errc::io_error, path,
                        std::string("cannot read ") + what + ": " + std::strerror(err));
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace corral::policy_io
