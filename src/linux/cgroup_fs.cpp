// PosixCgroupFs: the real cgroupfs file operations behind the CgroupFs interface. Plain syscalls,
// errnos returned as values; nothing here knows cgroup semantics.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "linux/cgroup.hpp"

namespace corral {

int PosixCgroupFs::make_dir(const std::string& path) {
  return ::mkdir(path.c_str(), 0755) == 0 ? 0 : errno;
}

int PosixCgroupFs::remove_dir(const std::string& path) {
  return ::rmdir(path.c_str()) == 0 ? 0 : errno;
}

int PosixCgroupFs::read_file(const std::string& path, std::string& out) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return errno;
  out.clear();
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return 0;
    out.append(buf, static_cast<size_t>(n));
  }
}

int PosixCgroupFs::write_file(const std::string& path, const std::string& text) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) return errno;
  for (;;) {
    ssize_t n = ::write(fd.get(), text.data(), text.size());
    if (n >= 0) return static_cast<size_t>(n) == text.size() ? 0 : EIO;
    if (errno != EINTR) return errno;
  }
}

bool PosixCgroupFs::exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool PosixCgroupFs::writable(const std::string& path) {
  // The effective ids decide what open()/mkdir() will be allowed, so ask with them.
  return ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0;
}

int PosixCgroupFs::list_dirs(const std::string& path, std::vector<std::string>& names) {
  names.clear();
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return errno;
  while (const dirent* e = ::readdir(dir)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    bool is_dir = e->d_type == DT_DIR;
    if (e->d_type == DT_UNKNOWN) {
      struct stat st;
      is_dir =
          ::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    }
    if (is_dir) names.push_back(std::move(name));
  }
  ::closedir(dir);
  return 0;
}

std::optional<std::chrono::system_clock::time_point> PosixCgroupFs::mtime(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  auto since_epoch =
      std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec);
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(since_epoch));
}

int PosixCgroupFs::open_dir(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  return fd >= 0 ? fd : -errno;
}

std::shared_ptr<CgroupFs> real_cgroup_fs() { return std::make_shared<PosixCgroupFs>(); }

}  // namespace corral
