// Recursive copy and removal of layer trees.
#include "workspace/tree.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "linux/fd.hpp"
#include "linux/file_clone.hpp"

namespace corral::workspace {
namespace {

Error io_error(const std::string& what, const std::string& path, int err) {
  Error e = make_error(Errc::io_error, what + ": " + std::strerror(err));
  e.file = path;
  return e;
}

Result<std::vector<std::string>> list_dir(const std::string& path) {
  DIR* d = opendir(path.c_str());
  if (!d) return io_error("cannot list directory", path, errno);
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    names.emplace_back(e->d_name);
  }
  closedir(d);
  return names;
}

void copy_owner_and_times(const std::string& dst, const struct stat& st) {
  // Only root can give files away; an ordinary user's copies are its own anyway.
  if (geteuid() == 0) (void)lchown(dst.c_str(), st.st_uid, st.st_gid);
  timespec times[2] = {st.st_atim, st.st_mtim};
  (void)utimensat(AT_FDCWD, dst.c_str(), times, AT_SYMLINK_NOFOLLOW);
}

Result<void> copy_data(const std::string& src, const std::string& dst, const struct stat& st) {
  UniqueFd in(open(src.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!in.valid()) return io_error("cannot open", src, errno);
  UniqueFd out(open(dst.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!out.valid()) return io_error("cannot create", dst, errno);
  if (int e = fsx::clone_or_copy(in.get(), out.get(), st.st_size)) return io_error("cannot copy", src, e);
  if (fchmod(out.get(), st.st_mode & 07777) != 0) return io_error("cannot set the mode of", dst, errno);
  return {};
}

Result<void> copy_entry(const std::string& src, const std::string& dst) {
  struct stat st;
  if (lstat(src.c_str(), &st) != 0) return io_error("cannot stat", src, errno);
  if (S_ISDIR(st.st_mode)) {
    if (mkdir(dst.c_str(), 0700) != 0) return io_error("cannot create directory", dst, errno);
    auto names = list_dir(src);
    if (!names) return std::move(names).error();
    for (const auto& n : *names)
      if (auto r = copy_entry(src + "/" + n, dst + "/" + n); !r) return r;
    copy_xattrs(src, dst);
    if (chmod(dst.c_str(), st.st_mode & 07777) != 0) return io_error("cannot set the mode of", dst, errno);
  } else if (S_ISREG(st.st_mode)) {
    if (auto r = copy_data(src, dst, st); !r) return r;
    copy_xattrs(src, dst);
  } else if (S_ISLNK(st.st_mode)) {
    std::string target(static_cast<size_t>(st.st_size) + 1, '\0');
    ssize_t n = readlink(src.c_str(), target.data(), target.size());
    if (n < 0) return io_error("cannot read link", src, errno);
    target.resize(static_cast<size_t>(n));
    if (symlink(target.c_str(), dst.c_str()) != 0) return io_error("cannot create link", dst, errno);
  } else {
    // Whiteouts (char 0:0) may be made by anyone; other devices, fifos and sockets as allowed.
    if (mknod(dst.c_str(), st.st_mode, st.st_rdev) != 0) return io_error("cannot create node", dst, errno);
    copy_xattrs(src, dst);
  }
  copy_owner_and_times(dst, st);
  return {};
}

}  // namespace

void copy_xattrs(const std::string& src, const std::string& dst) {
  ssize_t len = llistxattr(src.c_str(), nullptr, 0);
  if (len <= 0) return;
  std::string names(static_cast<size_t>(len), '\0');
  len = llistxattr(src.c_str(), names.data(), names.size());
  if (len <= 0) return;
  for (size_t i = 0; i < static_cast<size_t>(len);) {
    const char* name = names.c_str() + i;
    i += std::strlen(name) + 1;
    ssize_t vlen = lgetxattr(src.c_str(), name, nullptr, 0);
    if (vlen < 0) continue;
    std::string value(static_cast<size_t>(vlen), '\0');
    vlen = lgetxattr(src.c_str(), name, value.data(), value.size());
    if (vlen < 0) continue;
    (void)lsetxattr(dst.c_str(), name, value.data(), static_cast<size_t>(vlen), 0);
  }
}

Result<void> copy_tree(const std::string& src, const std::string& dst) {
  return copy_entry(src, dst);
}

Result<void> copy_file_to(const std::string& src, const std::string& dst) {
  struct stat st;
  if (lstat(src.c_str(), &st) != 0) return io_error("cannot stat", src, errno);
  std::string tmp = dst + ".corral-tmp";
  unlink(tmp.c_str());
  if (auto r = copy_data(src, tmp, st); !r) return r;
  timespec times[2] = {st.st_atim, st.st_mtim};
  (void)utimensat(AT_FDCWD, tmp.c_str(), times, AT_SYMLINK_NOFOLLOW);
  if (rename(tmp.c_str(), dst.c_str()) != 0) {
    int e = errno;
    unlink(tmp.c_str());
    return io_error("cannot rename into place", dst, e);
  }
  return {};
}

Result<void> remove_tree(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return errno == ENOENT ? Result<void>() : io_error("cannot stat", path, errno);
  if (!S_ISDIR(st.st_mode)) {
    if (unlink(path.c_str()) != 0 && errno != ENOENT) return io_error("cannot remove", path, errno);
    return {};
  }
  if ((st.st_mode & 0700) != 0700) (void)chmod(path.c_str(), 0700);
  auto names = list_dir(path);
  if (!names) return std::move(names).error();
  for (const auto& n : *names)
    if (auto r = remove_tree(path + "/" + n); !r) return r;
  if (rmdir(path.c_str()) != 0 && errno != ENOENT) return io_error("cannot remove directory", path, errno);
  return {};
}

}  // namespace corral::workspace
