#include "linux/caller_view.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <regex>
#include <fmt/format.h>

namespace corral {
namespace {

// /proc/self/root/X, /proc/N/root/X: X.
std::string without_proc_root(const std::string& path) {
  if (!path.starts_with("/proc/")) return path;  // the common case, without a regex
  static const std::regex proc_root("^/proc/(self|thread-self|[0-9]+)/root(/.*)?$");
  std::smatch m;
  if (!std::regex_match(path, m, proc_root)) return path;
  std::string rest = m[2].str();
  return rest.empty() ? "/" : without_proc_root(rest);
}

}  // namespace

Caller::Caller(pid_t pid) : pid_(pid) {
  root_.reset(open(fmt::format("/proc/{}/root", pid).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
}

// process_vm_readv, not /proc/PID/mem: a caller that made itself non-dumpable has its /proc
// files owned by the namespace's root, which an unprivileged user's sandbox does not map, so
// opening its mem fails on file permissions whatever our ptrace rights; process_vm_readv asks
// only for those. Read page by page, so a string that ends just before an unmapped page is
// still read whole.
ssize_t Caller::read_memory(std::uint64_t addr, void* out, size_t len) const {
  size_t done = 0;
  while (done < len) {
    const std::uint64_t at = addr + done;
    const size_t page = 4096;
    size_t chunk = std::min(len - done, page - static_cast<size_t>(at % page));
    iovec local{static_cast<char*>(out) + done, chunk};
    iovec remote{reinterpret_cast<void*>(at), chunk};
    ssize_t n = process_vm_readv(pid_, &local, 1, &remote, 1, 0);
    // A page without read permission (execute-only): /proc/PID/mem reads it as the kernel
    // would, when its file permissions let us open it.
    if (n <= 0) n = mem_pread(local.iov_base, chunk, at);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
    if (static_cast<size_t>(n) < chunk) break;
    if (std::memchr(static_cast<char*>(out) + done - static_cast<size_t>(n), '\0',
                    static_cast<size_t>(n)))
      break;  // enough for a string; callers of fixed-size reads ask for less than a page
  }
  return done == 0 ? -1 : static_cast<ssize_t>(done);
}

ssize_t Caller::mem_pread(void* out, size_t len, std::uint64_t addr) const {
  if (!mem_.valid())
    mem_.reset(open(fmt::format("/proc/{}/mem", pid_).c_str(), O_RDONLY | O_CLOEXEC));
  if (!mem_.valid()) return -1;
  return pread(mem_.get(), out, len, static_cast<off_t>(addr));
}

std::optional<std::string> Caller::string_at(std::uint64_t addr) const {
  char buf[PATH_MAX];
  ssize_t n = read_memory(addr, buf, sizeof buf);
  if (n <= 0) unreadable_ = true;
  if (n <= 0) return std::nullopt;
  const void* nul = std::memchr(buf, '\0', static_cast<size_t>(n));
  if (!nul) return std::nullopt;
  return std::string(static_cast<const char*>(buf), static_cast<const char*>(nul));
}

std::optional<std::uint64_t> Caller::u64_at(std::uint64_t addr) const {
  std::uint64_t v = 0;
  if (pread_exact(addr, &v, sizeof v)) return v;
  return std::nullopt;
}

bool Caller::pread_exact(std::uint64_t addr, void* out, size_t len) const {
  iovec local{out, len};
  iovec remote{reinterpret_cast<void*>(addr), len};
  if (process_vm_readv(pid_, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len)) return true;
  if (mem_pread(out, len, addr) == static_cast<ssize_t>(len)) return true;
  unreadable_ = true;
  return false;
}

// /proc/self/cwd/X, /proc/N/fd/K/X, /dev/fd/K/X and the like: the kernel follows those magic
// links to the process's cwd or open file; the monitor cannot (it is not that process, and
// resolves with RESOLVE_NO_MAGICLINKS), so it reads the link as the caller would see it.
std::string Caller::through_proc_links(std::string p) const {
  if (!p.starts_with("/proc/") && !p.starts_with("/dev/fd")) return p;  // the common case
  static const std::regex dev_fd("^/dev/fd(/.*)?$");
  static const std::regex proc_link(
      "^/proc/(self|thread-self|[0-9]+)(?:/task/([0-9]+))?/(cwd|fd/[0-9]+)(/.*)?$");
  for (int hops = 0; hops < 8; ++hops) {
    std::smatch m;
    if (std::regex_match(p, m, dev_fd)) {
      p = "/proc/self/fd" + m[1].str();
      continue;
    }
    if (!std::regex_match(p, m, proc_link)) return p;
    auto link = link_path(m[1].str(), m[2].str(), m[3].str());
    if (!link) return p;
    char buf[PATH_MAX];
    ssize_t n = readlink(link->c_str(), buf, sizeof buf - 1);
    if (n <= 0 || buf[0] != '/') return p;  // gone, or a pipe or socket: nothing to write into
    p = normal(std::string(buf, static_cast<size_t>(n)) + m[4].str());
  }
  return p;
}

const std::optional<Caller::Ids>& Caller::ids() const {
  if (ids_loaded_) return ids_;
  ids_loaded_ = true;
  int fd = open(fmt::format("/proc/{}/status", pid_).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ids_;
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(fd);
  // "Key:\tA\tB": the last number is the innermost pid namespace's, the sandbox's.
  auto field = [&text](const char* key, bool last) -> long {
    auto at = text.find(std::string("\n") + key + ":");
    if (at == std::string::npos) return -1;
    auto end = text.find('\n', at + 1);
    std::string line = text.substr(at + std::strlen(key) + 2,
                                   end == std::string::npos ? std::string::npos
                                                            : end - at - std::strlen(key) - 2);
    auto pos = last ? line.find_last_of(" \t") : std::string::npos;
    return std::strtol(line.c_str() + (pos == std::string::npos ? 0 : pos + 1), nullptr, 10);
  };
  Ids v{static_cast<pid_t>(field("Tgid", false)), static_cast<pid_t>(field("NStgid", true)),
        static_cast<pid_t>(field("NSpid", true))};
  if (v.tgid > 0 && v.ns_tgid > 0 && v.ns_tid > 0) ids_ = v;
  return ids_;
}

// Where to read the magic link `what` (cwd, root, fd/N) of /proc/WHO[/task/TASK] as the
// caller sees it: "self" is the caller's thread group (the kernel resolves it to the leader,
// whose cwd and fds a thread that unshared CLONE_FS/CLONE_FILES may not share), "thread-self"
// the calling thread, a number a process of the sandbox, through the caller's own /proc.
std::optional<std::string> Caller::link_path(const std::string& who, const std::string& task,
                                             const std::string& what) const {
  if (who == "thread-self" && task.empty()) return fmt::format("/proc/{}/{}", pid_, what);
  std::string number = who;
  if (who == "self" || who == "thread-self") {
    const auto& v = ids();
    if (!v) return std::nullopt;
    if (task.empty()) return fmt::format("/proc/{}/{}", v->tgid, what);
    number = std::to_string(v->ns_tgid);
  }
  return task.empty() ? fmt::format("/proc/{}/root/proc/{}/{}", pid_, number, what)
                      : fmt::format("/proc/{}/root/proc/{}/task/{}/{}", pid_, number, task, what);
}

std::optional<std::string> Caller::read_link(const std::string& link) const {
  char buf[PATH_MAX];
  ssize_t n = readlink(link.c_str(), buf, sizeof buf);
  if (n <= 0) {
    // No such fd (or process): nothing to say. Anything else (EACCES on a non-dumpable
    // caller's files, ENAMETOOLONG for a cwd deeper than PATH_MAX): the check knows nothing.
    if (errno != EBADF && errno != ENOENT) unreadable_ = true;
    return std::nullopt;
  }
  if (static_cast<size_t>(n) >= sizeof buf) {  // cut off
    unreadable_ = true;
    return std::nullopt;
  }
  return std::string(buf, static_cast<size_t>(n));
}

std::optional<std::string> Caller::absolute(int dirfd, const std::string& path) const {
  std::string joined = path;
  if (path.empty() || path[0] != '/') {
    auto base = read_link(dirfd == AT_FDCWD ? fmt::format("/proc/{}/cwd", pid_)
                                            : fmt::format("/proc/{}/fd/{}", pid_, dirfd));
    if (!base) return std::nullopt;
    if (base->empty() || (*base)[0] != '/') return std::nullopt;  // "pipe:[..]", "anon_inode:.."
    if (path.empty()) return base;
    joined = *base == "/" ? "/" + path : *base + "/" + path;
  }
  if (joined.size() >= PATH_MAX) {  // the kernel resolves it piecewise from a dirfd; we cannot
    unreadable_ = true;
    return std::nullopt;
  }
  // A magic link at the front (/proc/self/cwd/.., /dev/fd/N/..) is followed first, as the
  // kernel does, and what comes after it is kept as written: ".." after it is taken from
  // where the link led, never lexically.
  std::string raw = tidy(joined);
  static const std::regex magic_prefix(
      "^/proc/(self|thread-self|[0-9]+)(?:/task/([0-9]+))?/(cwd|root|fd/[0-9]+)(/.*)?$");
  for (int hops = 0; hops < 8; ++hops) {
    if (raw.starts_with("/dev/fd/") || raw == "/dev/fd") raw = "/proc/self/fd" + raw.substr(7);
    for (const auto& [name, fd] : {std::pair{"/dev/stdin", "0"}, std::pair{"/dev/stdout", "1"},
                                   std::pair{"/dev/stderr", "2"}})
      if (raw == name || raw.starts_with(std::string(name) + "/"))
        raw = std::string("/proc/self/fd/") + fd + raw.substr(std::strlen(name));
    std::smatch m;
    if (!raw.starts_with("/proc/") || !std::regex_match(raw, m, magic_prefix)) break;
    const std::string who = m[1].str(), task = m[2].str(), what = m[3].str(), rest = m[4].str();
    if (what == "root") {  // every process in a sandbox has the same root
      raw = rest.empty() ? "/" : rest;
      continue;
    }
    auto link = link_path(who, task, what);
    if (!link) {
      unreadable_ = true;
      return std::nullopt;
    }
    auto target = read_link(*link);
    if (!target) return std::nullopt;
    if (target->empty() || (*target)[0] != '/') return std::nullopt;  // a pipe or socket
    raw = *target + rest;
  }
  // The caller's own /proc entries by its pid as the sandbox numbers it: "self" resolved by
  // corral would be corral.
  for (const char* self : {"/proc/self", "/proc/thread-self"}) {
    const std::string prefix(self);
    if (raw == prefix || raw.starts_with(prefix + "/")) {
      const auto& v = ids();
      if (!v) {
        unreadable_ = true;
        return std::nullopt;
      }
      raw = (prefix == "/proc/self" ? fmt::format("/proc/{}", v->ns_tgid)
                                    : fmt::format("/proc/{}/task/{}", v->ns_tgid, v->ns_tid)) +
            raw.substr(prefix.size());
    }
  }
  // A ".." anywhere in a path that still goes through /proc or /dev (a magic link reached any
  // other way than at the front, "/tmp/../proc/N/cwd/.."): which directory it leaves cannot be
  // told from the text, so the check knows nothing.
  if (has_dotdot(raw) && (raw.find("/proc/") != std::string::npos ||
                          raw.find("/dev/") != std::string::npos)) {
    unreadable_ = true;
    return std::nullopt;
  }
  std::string norm = normal(raw);
  std::string translated = through_proc_links(norm);
  // What still goes through /proc or /dev/fd after that (a magic link further in) is resolved
  // in its translated form; everything else as written, as the kernel resolves it.
  const bool magic = translated != norm || raw.find("/proc/") != std::string::npos ||
                     raw.find("/dev/fd") != std::string::npos;
  raw_of_[translated] = magic ? translated : raw;
  return translated;
}

bool has_dotdot(const std::string& path) {
  for (size_t at = path.find(".."); at != std::string::npos; at = path.find("..", at + 1))
    if ((at == 0 || path[at - 1] == '/') && (at + 2 == path.size() || path[at + 2] == '/'))
      return true;
  return false;
}

std::string tidy(const std::string& path) {
  std::string out;
  out.reserve(path.size());
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '/' && !out.empty() && out.back() == '/') continue;  // "//"
    out.push_back(path[i]);
    // "/./" -> "/"
    if (out.size() >= 3 && out.compare(out.size() - 3, 3, "/./") == 0) out.resize(out.size() - 2);
  }
  if (out.size() >= 2 && out.compare(out.size() - 2, 2, "/.") == 0) out.resize(out.size() - 1);
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string Caller::raw_of(const std::string& path) const {
  auto it = raw_of_.find(path);
  return it == raw_of_.end() ? path : it->second;
}

std::optional<std::string> Caller::path_arg(int dirfd, std::uint64_t addr) const {
  auto path = string_at(addr);
  if (!path) return std::nullopt;
  return absolute(dirfd, *path);
}

UniqueFd Caller::resolve(const std::string& abs, bool follow) const {
  // No symlink on the way (the usual case): one openat2.
  open_how how;
  std::memset(&how, 0, sizeof how);
  how.flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS;
  UniqueFd fast(static_cast<int>(syscall(SYS_openat2, root_.get(), abs.c_str(), &how, sizeof how)));
  if (fast.valid() || errno != ELOOP) return fast;
  return walk(abs, follow);
}

// Component by component, symlinks expanded as the kernel would in the caller's root, except
// that a symlink into a process's magic links (/proc/self/cwd, /proc/N/fd/K, /dev/fd/K,
// /dev/stdin...) or a lookup inside procfs reached through a symlink or ".." cannot be followed
// here: "self" would be corral, not the caller. Those fail with EXDEV and mark the check
// unreadable, so a guarded write fails closed.
UniqueFd Caller::walk(const std::string& abs, bool follow) const {
  static const std::regex magic("^/(proc/(self|thread-self|[0-9]+)|dev/(fd|stdin|stdout|stderr))(/.*)?$");
  std::vector<std::string> todo;  // components still to resolve, the next one last
  auto push_front = [&todo](const std::string& path) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= path.size()) {
      size_t end = path.find('/', start);
      if (end == std::string::npos) end = path.size();
      if (end > start) parts.push_back(path.substr(start, end - start));
      start = end + 1;
    }
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo.push_back(*it);
  };
  auto fail = [this](int err) {
    if (err == EXDEV) unreadable_ = true;
    errno = err;
    return UniqueFd();
  };
  UniqueFd cur(dup(root_.get()));
  push_front(abs);
  int links = 0;
  while (!todo.empty()) {
    // The kernel stops at 40 links; a chain of long targets could still make each trapped call
    // cost seconds here: past a fixed amount of work per call, corral gives up (fails closed).
    if (++walk_steps_ > 4096) return fail(EXDEV);
    const std::string comp = todo.back();
    todo.pop_back();
    if (comp == ".") continue;
    struct statfs fs;
    if (fstatfs(cur.get(), &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC && links > 0) return fail(EXDEV);
    if (comp == "..") {
      if (same_inode(cur, root_)) continue;  // ".." at the root stays there
      cur.reset(openat(cur.get(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
      if (!cur.valid()) return fail(errno);
      continue;
    }
    UniqueFd next(openat(cur.get(), comp.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) return fail(errno);
    struct stat st;
    if (fstat(next.get(), &st) != 0) return fail(errno);
    if (!S_ISLNK(st.st_mode) || (todo.empty() && !follow)) {
      cur = std::move(next);
      continue;
    }
    if (++links > 40) return fail(ELOOP);
    char buf[PATH_MAX];
    ssize_t n = readlinkat(next.get(), "", buf, sizeof buf);
    if (n <= 0 || static_cast<size_t>(n) >= sizeof buf) return fail(EXDEV);
    std::string target(buf, static_cast<size_t>(n));
    if (target[0] == '/') {
      if (std::regex_match(tidy(target), magic)) return fail(EXDEV);
      cur.reset(dup(root_.get()));
    }
    push_front(target);
  }
  return cur;
}

std::string normal(const std::string& path) {
  std::string n = std::filesystem::path(path).lexically_normal().string();
  while (n.size() > 1 && n.back() == '/') n.pop_back();  // "mkdir a/" names a
  return without_proc_root(n);
}

std::string parent_of(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  auto slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_name(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool at_or_beneath(const std::string& path, const std::string& dir) {
  return path == dir || dir == "/" ||
         (path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/');
}

bool same_inode(const UniqueFd& a, const UniqueFd& b) {
  struct stat sa, sb;
  return a.valid() && b.valid() && fstat(a.get(), &sa) == 0 && fstat(b.get(), &sb) == 0 &&
         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int first_mark_above(const UniqueFd& dir, const std::vector<UniqueFd>& marks) {
  std::vector<struct stat> ids(marks.size());
  std::vector<bool> usable(marks.size());
  for (size_t i = 0; i < marks.size(); ++i)
    usable[i] = marks[i].valid() && fstat(marks[i].get(), &ids[i]) == 0;
  if (!dir.valid() || std::none_of(usable.begin(), usable.end(), [](bool u) { return u; }))
    return -1;
  UniqueFd at(dup(dir.get()));
  for (int depth = 0; depth < 256 && at.valid(); ++depth) {
    struct stat cur;
    if (fstat(at.get(), &cur) != 0) return -1;
    for (size_t i = 0; i < marks.size(); ++i)
      if (usable[i] && ids[i].st_dev == cur.st_dev && ids[i].st_ino == cur.st_ino)
        return static_cast<int>(i);
    UniqueFd up(openat(at.get(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
    struct stat above;
    if (!up.valid() || fstat(up.get(), &above) != 0) return -1;
    if (above.st_dev == cur.st_dev && above.st_ino == cur.st_ino) return -1;  // the root
    at = std::move(up);
  }
  return -1;
}

}  // namespace corral
