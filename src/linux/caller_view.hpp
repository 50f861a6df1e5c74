// A trapped caller's view, for the seccomp monitor's checks (fs_write_check, fs_read_check):
// path strings read from its memory, made absolute as it sees them, and resolved inside its
// own root; plus the path and inode comparisons those checks share.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "linux/fd.hpp"

namespace corral {

class Caller {
 public:
  explicit Caller(pid_t pid);
  bool valid() const { return root_.valid(); }

  // A NUL-terminated string at `addr`, at most PATH_MAX bytes (longer fails with ENAMETOOLONG
  // in the kernel too).
  std::optional<std::string> string_at(std::uint64_t addr) const;
  std::optional<std::uint64_t> u64_at(std::uint64_t addr) const;

  // `path` (relative to directory fd `dirfd` of the caller, or its cwd) made absolute as the
  // caller sees it. /proc/PID/cwd and /proc/PID/fd/N print the path from the caller's root.
  std::optional<std::string> absolute(int dirfd, const std::string& path) const;
  // The path argument at `addr`, relative to `dirfd`, made absolute (both steps above).
  std::optional<std::string> path_arg(int dirfd, std::uint64_t addr) const;

  // Opens `abs` (O_PATH) inside the caller's root, following a last symlink or not. Invalid on
  // failure, with errno.
  UniqueFd resolve(const std::string& abs, bool follow) const;

  // /proc/self/cwd/X, /proc/N/fd/K/X, /dev/fd/K/X and the like, followed as the caller would.
  std::string through_proc_links(std::string path) const;
  // The not-lexically-normalized form of a path absolute() returned ("a/link/../x"), for
  // resolving it as the kernel does; `path` itself if there is none.
  std::string raw_of(const std::string& path) const;
  // Records `raw` as the raw form of `path` (for a path a check derived, e.g. a symlink's target).
  void remember_raw(const std::string& path, const std::string& raw) const { raw_of_[path] = raw; }
  // Some argument (a path, a dirfd's target) could not be read: the check knows nothing.
  bool unreadable() const { return unreadable_; }
  void mark_unreadable() const { unreadable_ = true; }

 private:
  // readlink of one of the caller's /proc links; nullopt (and unreadable(), unless the fd or
  // process is simply gone) when it fails or would be cut off.
  std::optional<std::string> read_link(const std::string& link) const;
  UniqueFd walk(const std::string& abs, bool follow) const;  // resolve()'s slow path
  struct Ids {
    pid_t tgid, ns_tgid, ns_tid;  // host thread group id; the sandbox's numbers for both
  };
  const std::optional<Ids>& ids() const;  // from /proc/PID/status, read once
  std::optional<std::string> link_path(const std::string& who, const std::string& task,
                                       const std::string& what) const;
  ssize_t read_memory(std::uint64_t addr, void* out, size_t len) const;
  bool pread_exact(std::uint64_t addr, void* out, size_t len) const;
  ssize_t mem_pread(void* out, size_t len, std::uint64_t addr) const;

  pid_t pid_;
  UniqueFd root_;
  mutable UniqueFd mem_;
  mutable bool unreadable_ = false;
  mutable std::map<std::string, std::string> raw_of_;
  mutable bool ids_loaded_ = false;
  mutable std::optional<Ids> ids_;
  mutable size_t walk_steps_ = 0;
};

// "a//b/./c/" as "a/b/c": the same path to the kernel, ".." left alone.
std::string tidy(const std::string& path);
// Whether `path` has a ".." component.
bool has_dotdot(const std::string& path);

// "a/./b/../c" as "a/c", without a trailing "/" and without a /proc/N/root prefix (every
// process in a sandbox has the same root, and the monitor cannot follow those magic links
// itself). Lexical: a ".." after a symlink is taken where the kernel would follow the link
// first; the checks compare directory identities too for that reason.
std::string normal(const std::string& path);
std::string parent_of(std::string path);
std::string base_name(std::string path);
bool at_or_beneath(const std::string& path, const std::string& dir);

bool same_inode(const UniqueFd& a, const UniqueFd& b);
// Walks up from directory `dir` through ".." (at most 256 levels, not past the root) and
// returns the index of the first of `marks` it meets (`dir` itself included), or -1.
int first_mark_above(const UniqueFd& dir, const std::vector<UniqueFd>& marks);

}  // namespace corral
