// Where a trapped write-type call lands, resolved in the caller's root (see fs_write_check.hpp).
#include "linux/fs_write_check.hpp"

#include <fcntl.h>
#include <stdio.h>  // RENAME_EXCHANGE
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

#include "linux/caller_view.hpp"
#include "linux/fs_read_check.hpp"
#include "linux/fd.hpp"

namespace corral {
namespace {




bool on_readonly_mount(const UniqueFd& fd) {
  struct statvfs st;
  return fd.valid() && fstatvfs(fd.get(), &st) == 0 && (st.f_flag & ST_RDONLY);
}

// Writing to an existing file is refused by a read-only mount only for regular files and
// directories: FIFOs, sockets and device nodes stay writable there.
bool write_refused(const UniqueFd& fd) {
  struct stat st;
  if (!fd.valid() || fstat(fd.get(), &st) != 0) return false;
  if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return false;
  return on_readonly_mount(fd);
}


std::string open_flags_text(std::uint64_t flags) {
  std::string out;
  switch (flags & O_ACCMODE) {
    case O_WRONLY: out = "O_WRONLY"; break;
    case O_RDWR: out = "O_RDWR"; break;
    default: out = "O_RDONLY"; break;
  }
  if (flags & O_CREAT) out += "|O_CREAT";
  if (flags & O_EXCL) out += "|O_EXCL";
  if (flags & O_TRUNC) out += "|O_TRUNC";
  if (flags & O_APPEND) out += "|O_APPEND";
  if ((flags & O_TMPFILE) == O_TMPFILE) out += "|O_TMPFILE";
  return out;
}

// Every prediction below resolves a path as the kernel will: in the caller's root, with a ".."
// after a symlink taken from where the link led (Caller::raw_of), never lexically.
UniqueFd resolve_raw(const Caller& c, const std::string& abs, bool follow) {
  return c.resolve(c.raw_of(abs), follow);
}
UniqueFd resolve_raw_parent(const Caller& c, const std::string& abs) {
  return c.resolve(parent_of(c.raw_of(abs)), true);
}

// Creating a name (mkdir, symlink, link, mknod, O_CREAT of a new file): refused when the
// directory it goes in is read-only and the name does not exist yet (else EEXIST comes first).
bool create_refused(const Caller& c, const std::string& abs) {
  if (resolve_raw(c, abs, false).valid()) return false;
  return on_readonly_mount(resolve_raw_parent(c, abs));
}

std::optional<std::uint64_t> mount_id(const UniqueFd& fd) {
  struct statx st;
  if (!fd.valid() || statx(fd.get(), "", AT_EMPTY_PATH, STATX_MNT_ID, &st) != 0 ||
      !(st.stx_mask & STATX_MNT_ID))
    return std::nullopt;
  return st.stx_mnt_id;
}

// Removing or renaming a name: refused when it exists in a read-only directory (EROFS), or is
// itself a mount point, as a write_deny file bound read-only over itself is (EBUSY).
std::string remove_refused(const Caller& c, const std::string& abs) {
  UniqueFd target = resolve_raw(c, abs, false);
  if (!target.valid()) return "";
  UniqueFd parent = resolve_raw_parent(c, abs);
  if (on_readonly_mount(parent)) return "EROFS";
  auto a = mount_id(target), b = mount_id(parent);
  if (a && b && *a != *b) return "EBUSY";
  return "";
}

// Where an open of `abs` lands when it follows a final symlink: O_CREAT through a dangling
// link creates the link's target, which is the path that matters (and is recorded). The raw
// form of the result (a target "../x" taken from where the link is) is remembered in `c`.
std::optional<std::string> final_target(const Caller& c, std::string abs) {
  std::string raw = c.raw_of(abs);
  for (int hops = 0; hops < 40; ++hops) {  // the kernel's own limit (ELOOP)
    UniqueFd link = c.resolve(raw, false);
    if (!link.valid() && (errno == EXDEV || errno == ELOOP)) {
      // A directory on the way we cannot follow (a symlink to /proc/self/cwd: Caller::walk):
      // whether the name is a symlink to a protected path is unknown.
      c.mark_unreadable();
      return std::nullopt;
    }
    struct stat st;
    if (!link.valid() || fstat(link.get(), &st) != 0 || !S_ISLNK(st.st_mode)) break;
    char buf[PATH_MAX];
    ssize_t n = readlinkat(link.get(), "", buf, sizeof buf - 1);
    if (n <= 0) break;
    std::string target(buf, static_cast<size_t>(n));
    std::string joined = target[0] == '/' ? target : parent_of(raw) + "/" + target;
    // As in Caller::absolute: ".." in a path through /proc or /dev cannot be followed.
    if (has_dotdot(joined) && (joined.find("/proc/") != std::string::npos ||
                               joined.find("/dev/") != std::string::npos)) {
      c.mark_unreadable();
      return std::nullopt;
    }
    abs = c.through_proc_links(normal(target[0] == '/' ? target : parent_of(abs) + "/" + target));
    // Through /proc: translated (and normal). Otherwise kept raw for resolving.
    raw = abs.starts_with("/proc/") || joined.starts_with("/proc/") || joined.starts_with("/dev/fd")
              ? abs
              : joined;
  }
  c.remember_raw(abs, raw);
  return abs;
}

std::optional<FsWriteCheck> check_open(const Caller& c, const std::string& op, int dirfd,
                                       std::uint64_t path_addr, std::uint64_t flags) {
  auto abs = c.path_arg(dirfd, path_addr);
  if (!abs) return std::nullopt;
  // O_CREAT|O_EXCL never follows a final symlink (it fails with EEXIST on one).
  const bool excl_create = (flags & O_CREAT) && (flags & O_EXCL);
  if (!(flags & O_NOFOLLOW) && !excl_create) {
    abs = final_target(c, *abs);
    if (!abs) return std::nullopt;
  }
  FsWriteCheck out{fmt::format("{}({})", op, open_flags_text(flags)), *abs, false, "EROFS"};
  out.read_only_open = (flags & O_ACCMODE) == O_RDONLY && !(flags & (O_CREAT | O_TRUNC));
  if ((flags & O_TMPFILE) == O_TMPFILE) {  // an unnamed file in the directory `path`
    out.refused = on_readonly_mount(resolve_raw(c, *abs, true));
    return out;
  }
  UniqueFd target = resolve_raw(c, *abs, !(flags & O_NOFOLLOW));
  // An existing file is written only with a write access mode or O_TRUNC (openat2 is trapped
  // whatever its flags, and O_RDONLY|O_CREAT of an existing file writes nothing).
  bool writes_existing = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
  if (target.valid())
    out.refused = writes_existing && !((flags & O_CREAT) && (flags & O_EXCL)) &&
                  write_refused(target);
  else if (flags & O_CREAT)
    out.refused = create_refused(c, *abs);
  return out;
}

// A call that writes one name: `path` relative to `dirfd`.
std::optional<FsWriteCheck> check_name(const Caller& c, const std::string& op, int dirfd,
                                       std::uint64_t path_addr, bool creates) {
  auto abs = c.path_arg(dirfd, path_addr);
  if (!abs) return std::nullopt;
  if (creates) return FsWriteCheck{op, *abs, create_refused(c, *abs), "EROFS"};
  std::string error = remove_refused(c, *abs);
  return FsWriteCheck{op, *abs, !error.empty(), error.empty() ? "EROFS" : error};
}

std::optional<FsWriteCheck> check_rename(const Caller& c, const std::string& op, int olddir,
                                         std::uint64_t old_addr, int newdir,
                                         std::uint64_t new_addr) {
  auto from = check_name(c, op, olddir, old_addr, false);
  if (!from) return std::nullopt;
  if (from->refused) return from;
  // Resolved before the new name is read: both may be the same text, with different raw forms.
  if (!resolve_raw(c, from->path, false).valid()) return from;
  auto to = c.path_arg(newdir, new_addr);
  if (!to) return from;
  // The target may exist (it is replaced) or not: its directory matters, and a target that is a
  // mount point (a write_deny file) cannot be replaced.
  UniqueFd to_dir = resolve_raw_parent(c, *to);
  if (on_readonly_mount(to_dir)) return FsWriteCheck{op, *to, true, "EROFS"};
  // A rename across mounts (EXDEV) is no violation: mv copies instead, as on any host.
  auto to_mnt = mount_id(to_dir);
  if (UniqueFd target = resolve_raw(c, *to, false); target.valid()) {
    auto t = mount_id(target);
    if (t && to_mnt && *t != *to_mnt) return FsWriteCheck{op, *to, true, "EBUSY"};
  }
  // Not refused: what is written is the new name (it may be under an absent write_deny path).
  return FsWriteCheck{op, *to, false, "EROFS"};
}

// A hard link: refused when the new name's directory is read-only, or (EXDEV) when the file
// lives on another mount, as every host file does from inside the workspace.
std::optional<FsWriteCheck> check_link(const Caller& c, const std::string& op, int olddir,
                                       std::uint64_t old_addr, int newdir,
                                       std::uint64_t new_addr, bool follow) {
  // The source first, resolved at once: both names may be the same text with different raw
  // forms. An fd of an unlinked file (O_TMPFILE) reads back as "/dir/#123 (deleted)", a name
  // that is not the file: its mount cannot be told, and the kernel decides.
  auto from = c.path_arg(olddir, old_addr);
  const bool unnamed = from && from->ends_with(" (deleted)");
  std::optional<std::uint64_t> a;
  if (from && !unnamed) a = mount_id(resolve_raw(c, *from, follow));
  auto to = check_name(c, op, newdir, new_addr, true);
  if (!to || to->refused || !a) return to;
  auto b = mount_id(resolve_raw_parent(c, to->path));
  if (b && *a != *b && !resolve_raw(c, to->path, false).valid()) {
    to->refused = true;
    to->error = "EXDEV";
    to->target = to->path;  // what would be written, for the write_deny checks
    to->path = *from;
  }
  return to;
}

// chmod, chown, truncate: the file itself must be writable.
std::optional<FsWriteCheck> check_inode(const Caller& c, const std::string& op, int dirfd,
                                        std::uint64_t path_addr, bool follow) {
  auto abs = c.path_arg(dirfd, path_addr);
  if (!abs) return std::nullopt;
  return FsWriteCheck{op, *abs, write_refused(resolve_raw(c, *abs, follow)), "EROFS"};
}

int dirfd_arg(std::uint64_t v) { return static_cast<int>(static_cast<std::uint32_t>(v)); }

// Which absent write_deny path the write of `path` reaches. `grafts`: the call puts a symlink
// or an existing tree at `path` (symlink, rename), so `path` above a deny path reaches it too.
// `non_dir`: the call makes a file, FIFO, socket or link there: at a name on the way to a deny
// path that is as good as a graft (a file `.git` saying "gitdir: elsewhere" moves the repository).
std::string reached_deny(const Caller& c, const std::string& path, bool grafts, bool non_dir,
                         const std::vector<std::string>& denies) {
  // Resolved as the kernel will (a ".." after a symlink included), in the caller's root.
  UniqueFd dir = c.resolve(parent_of(c.raw_of(path)), true);
  const std::string name = base_name(path);
  for (const auto& d : denies) {
    if (at_or_beneath(path, d) || ((grafts || non_dir) && at_or_beneath(d, path))) return d;
    // The same places under other names: the deny path itself (or, grafting, one of its
    // ancestors) is created when the name matches and the directory is the same one.
    for (std::string a = d; a != "/"; a = parent_of(a)) {
      if (name == base_name(a)) {
        // A directory we cannot follow the caller into (a symlink into /proc/self, which we
        // would resolve as ourselves): fail closed. If it truly does not exist, the call fails
        // anyway; it only gets EROFS instead of ENOENT.
        if (!dir.valid()) return d;
        if (same_inode(dir, c.resolve(parent_of(a), true))) return d;
      }
      if (!grafts && !non_dir) break;  // only the deny path itself is created by this name
    }
    if (!dir.valid()) continue;
    // Beneath the deny path, should it exist by now after all (usually it does not: then
    // there is nothing to walk up to).
    std::vector<UniqueFd> top;
    top.push_back(c.resolve(d, true));
    if (top[0].valid() && first_mark_above(dir, top) == 0) return d;
  }
  return "";
}

// The identities of the names on the way to each keep_in_place path (directories, and
// symlinks as themselves), learned once per sandbox and shared (fs_guard.hpp).
const FsGuard::Ids& learn_ways(const Caller& c, const FsGuard& g) {
  FsGuard::Ids& ids = *g.ids;
  if (ids.ways_known) return ids;
  auto add = [&](const UniqueFd& fd, bool dirs, size_t i) {
    struct stat st;
    if (fd.valid() && fstat(fd.get(), &st) == 0 &&
        ((dirs && S_ISDIR(st.st_mode)) || S_ISLNK(st.st_mode))) {
      ids.ways.push_back({st.st_dev, st.st_ino});
      ids.ways_to.push_back(i);
    }
  };
  ids.keep_exists.assign(g.keep_in_place.size(), false);
  for (size_t i = 0; i < g.keep_in_place.size(); ++i) {
    // One that does not exist is guarded by name where it would be created (absent_deny): the
    // way to it may change. One that exists must stay where its protection is.
    if (!c.resolve(g.keep_in_place[i], true).valid() && !c.resolve(g.keep_in_place[i], false).valid())
      continue;
    ids.keep_exists[i] = true;
    // The path itself only as a symlink (a mount protecting it lands on the link's target and
    // leaves the name replaceable); otherwise its own mount point refuses (EBUSY).
    add(c.resolve(g.keep_in_place[i], false), false, i);
    for (std::string a = parent_of(g.keep_in_place[i]); a != "/"; a = parent_of(a))
      for (bool follow : {false, true}) add(c.resolve(a, follow), true, i);
  }
  ids.ways_known = true;
  return ids;
}

// Which keep_in_place path a call that moves, replaces or removes the name `abs` would leave
// to be re-created unprotected ("" if none): `abs` is on the way to it, by name or (through
// symlinks and "..") by identity.
std::string unmoored_keep(const Caller& c, const std::string& abs, const FsGuard& g) {
  if (g.keep_in_place.empty()) return "";
  const FsGuard::Ids& ids = learn_ways(c, g);
  if (c.raw_of(abs) == abs)
    for (size_t i = 0; i < g.keep_in_place.size(); ++i)
      if (ids.keep_exists[i] && g.keep_in_place[i] != abs && at_or_beneath(g.keep_in_place[i], abs))
        return g.keep_in_place[i];
  UniqueFd fd = resolve_raw(c, abs, false);
  // Not there: nothing to move. Not followable (a magic link on the way): fail closed.
  if (!fd.valid())
    return errno == ENOENT || errno == ENOTDIR ? "" : "(any: the way to the name could not be followed)";
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return "";
  for (size_t i = 0; i < ids.ways.size(); ++i)
    if (ids.ways[i] == FsGuard::Id{st.st_dev, st.st_ino}) return g.keep_in_place[ids.ways_to[i]];
  return "";
}

}  // namespace

const std::vector<std::string>& watched_write_syscalls() {
  static const std::vector<std::string> names = {
      "open",   "openat",  "openat2", "creat",    "mkdir",     "mkdirat",
      "unlink", "unlinkat", "rmdir",  "rename",   "renameat",  "renameat2",
      "link",   "linkat",  "symlink", "symlinkat", "truncate",  "chmod",
      "fchmodat", "fchmodat2", "chown", "lchown",   "fchownat", "mknod",     "mknodat"};
  return names;
}

namespace {

std::optional<FsWriteCheck> check_call(const Caller& c, const std::string& s,
                                       const std::uint64_t a[6]) {
  if (s == "open") return check_open(c, s, AT_FDCWD, a[0], a[1]);
  if (s == "openat") return check_open(c, s, dirfd_arg(a[0]), a[1], a[2]);
  if (s == "creat") return check_open(c, s, AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC);
  if (s == "openat2") {
    auto flags = c.u64_at(a[2]);  // open_how.flags is its first member
    if (!flags) return std::nullopt;
    return check_open(c, s, dirfd_arg(a[0]), a[1], *flags);
  }
  if (s == "mkdir") return check_name(c, s, AT_FDCWD, a[0], true);
  if (s == "mkdirat") return check_name(c, s, dirfd_arg(a[0]), a[1], true);
  if (s == "unlink" || s == "rmdir") return check_name(c, s, AT_FDCWD, a[0], false);
  if (s == "unlinkat") return check_name(c, s, dirfd_arg(a[0]), a[1], false);
  if (s == "rename") return check_rename(c, s, AT_FDCWD, a[0], AT_FDCWD, a[1]);
  if (s == "renameat" || s == "renameat2")
    return check_rename(c, s, dirfd_arg(a[0]), a[1], dirfd_arg(a[2]), a[3]);
  if (s == "link") return check_link(c, s, AT_FDCWD, a[0], AT_FDCWD, a[1], false);
  if (s == "linkat")
    return check_link(c, s, dirfd_arg(a[0]), a[1], dirfd_arg(a[2]), a[3],
                      (a[4] & AT_SYMLINK_FOLLOW) != 0);
  if (s == "mknod") return check_name(c, s, AT_FDCWD, a[0], true);
  if (s == "mknodat") return check_name(c, s, dirfd_arg(a[0]), a[1], true);
  if (s == "symlink") return check_name(c, s, AT_FDCWD, a[1], true);
  if (s == "symlinkat") return check_name(c, s, dirfd_arg(a[1]), a[2], true);
  if (s == "truncate" || s == "chmod" || s == "chown")
    return check_inode(c, s, AT_FDCWD, a[0], true);
  if (s == "lchown") return check_inode(c, s, AT_FDCWD, a[0], false);
  if (s == "fchmodat" || s == "fchmodat2" || s == "fchownat") {
    // fchmodat has no flags argument (always follows); fchmodat2 and fchownat take
    // AT_SYMLINK_NOFOLLOW in their last one. AT_EMPTY_PATH (an fd, no path) is not watched.
    std::uint64_t flags = s == "fchmodat" ? 0 : s == "fchmodat2" ? a[3] : a[4];
    if (flags & AT_EMPTY_PATH) return std::nullopt;
    return check_inode(c, s, dirfd_arg(a[0]), a[1], !(flags & AT_SYMLINK_NOFOLLOW));
  }
  return std::nullopt;
}

}  // namespace

namespace {

std::optional<FsWriteCheck> check_with_guard(const Caller& c, const std::string& s,
                                             const std::uint64_t a[6], const FsGuard& guard) {
  const bool moves = s == "rename" || s == "renameat" || s == "renameat2";
  // rmdir of a directory on the way to an existing protected path fails (it is not empty);
  // unlink of a symlink on the way does not.
  const bool removes = s == "unlink" || (s == "unlinkat" && !(a[2] & AT_REMOVEDIR));
  const std::uint64_t open_flags = s == "open"      ? a[1]
                                   : s == "openat"  ? a[2]
                                   : s == "openat2" ? c.u64_at(a[2]).value_or(O_WRONLY)
                                                    : O_WRONLY;
  const bool only_reads =
      (open_flags & O_ACCMODE) == O_RDONLY && !(open_flags & (O_CREAT | O_TRUNC));
  const bool guarded = !guard.absent_deny.empty() || ((moves || removes) && !guard.keep_in_place.empty());
  auto blind = [&](const std::string& why) {
    FsWriteCheck b{s, "(a path corral could not read)", false, "EROFS"};
    b.absent_deny = why;
    return b;
  };
  // openat2 with RESOLVE_IN_ROOT takes "/" as its dirfd: paths corral would read wrongly.
  if (s == "openat2" && !only_reads && guarded) {
    constexpr std::uint64_t kResolveInRoot = 0x10;
    auto resolve = c.u64_at(a[2] + 16);  // open_how: flags, mode, resolve
    if (!resolve || (*resolve & kResolveInRoot))
      return blind("(any: openat2 with RESOLVE_IN_ROOT is not followed by corral)");
  }
  auto out = check_call(c, s, a);
  // An argument we could not read (execute-only memory, a non-dumpable caller's dirfd that an
  // unprivileged monitor cannot follow, a path longer than PATH_MAX): with paths to guard, fail
  // closed; but never for an open that only reads (watch_reads traps those too).
  if (!out && c.unreadable() && guarded && !only_reads)
    return blind("(any: the call's path could not be read to check it)");
  if (!out) return out;
  if (out->read_only_open) {
    if (!out->refused && guard.watch_reads) out->read_deny = read_deny_reached(c, out->path, guard);
    return out;
  }
  // Moving, replacing or removing the way to a write_deny path or the state directory. Judged
  // even where the kernel is predicted to refuse: a prediction is only as good as the path
  // corral read, and these the monitor refuses itself.
  if (moves || removes) {
    const int from_arg = s == "rename" || s == "unlink" ? 0 : 1;
    const int from_dirfd = from_arg == 0 ? AT_FDCWD : dirfd_arg(a[0]);
    if (auto from = c.path_arg(from_dirfd, a[from_arg])) {
      out->unmoors = unmoored_keep(c, *from, guard);
      if (!out->unmoors.empty()) out->path = *from;  // what would move
    }
    else if (c.unreadable() && !guard.keep_in_place.empty())
      out->unmoors = "(any: the call's path could not be read to check it)";
    if (out->unmoors.empty() && moves) {
      const bool two_dirfds = s != "rename";
      if (auto to = c.path_arg(two_dirfds ? dirfd_arg(a[2]) : AT_FDCWD, a[two_dirfds ? 3 : 1]))
        out->unmoors = unmoored_keep(c, *to, guard);  // replaced, or (exchange) moved
    }
  }
  if (guard.absent_deny.empty()) return out;
  // A second name for a write_deny file that appeared after the sandbox started (no mount
  // protects it): writing through that name would write the file.
  if (s == "link" || s == "linkat") {
    const bool follow = s == "linkat" && (a[4] & AT_SYMLINK_FOLLOW);
    // Reading the source again records its raw form, which may share the new name's text:
    // keep the new name's.
    const std::string written = out->target.empty() ? out->path : out->target;
    const std::string written_raw = c.raw_of(written);
    auto from = c.path_arg(s == "link" ? AT_FDCWD : dirfd_arg(a[0]), a[s == "link" ? 0 : 1]);
    c.remember_raw(written, written_raw);
    if (from) {
      UniqueFd src = resolve_raw(c, *from, follow);
      for (const auto& d : guard.absent_deny) {
        if (at_or_beneath(*from, d) || (src.valid() && same_inode(src, c.resolve(d, true)))) {
          out->absent_deny = d;
          return out;
        }
      }
    } else if (c.unreadable()) {
      out->absent_deny = "(any: the call's path could not be read to check it)";
      return out;
    }
  }
  const bool grafts = s.starts_with("symlink") || s.starts_with("rename");
  // (An O_TMPFILE open names a directory, not a file it creates: linking it in is checked.)
  const bool creates_file =
      ((s.starts_with("open") || s == "creat") && (open_flags & O_TMPFILE) != O_TMPFILE) ||
      s.starts_with("mknod") || s.starts_with("link");
  out->absent_deny = reached_deny(c, out->target.empty() ? out->path : out->target, grafts,
                                  creates_file, guard.absent_deny);
  // An exchange also puts the destination's tree at the source's name.
  if (out->absent_deny.empty() && s == "renameat2" && (a[4] & RENAME_EXCHANGE)) {
    if (auto from = c.path_arg(dirfd_arg(a[0]), a[1])) {
      out->absent_deny = reached_deny(c, *from, true, false, guard.absent_deny);
      if (!out->absent_deny.empty()) out->path = *from;
    }
  }
  return out;
}

}  // namespace

std::optional<FsWriteCheck> check_fs_write(pid_t pid, const std::string& s,
                                           const std::uint64_t a[6],
                                           const FsGuard& guard) {
  Caller c(pid);
  if (!c.valid()) return std::nullopt;
  auto out = check_with_guard(c, s, a, guard);
  // Named as the caller named it where the lexical form would mislead ("/tmp/l/../x", which
  // the kernel takes from where the link led, is not "/tmp/x").
  if (out && c.raw_of(out->path) != out->path) {
    const std::string raw = c.raw_of(out->path);
    UniqueFd lexical_dir = c.resolve(parent_of(out->path), true);
    UniqueFd raw_dir = c.resolve(parent_of(raw), true);
    if (raw_dir.valid() && !same_inode(lexical_dir, raw_dir)) out->path = raw;
  }
  return out;
}

}  // namespace corral
