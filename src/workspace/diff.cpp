// diff_trees(): a walk of the upper layer, each entry compared with the lower's.
#include "workspace/diff.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <set>

#include "linux/fd.hpp"

namespace corral::workspace {

const char* change_kind_name(ChangeKind k) {
  switch (k) {
    case ChangeKind::added: return "added";
    case ChangeKind::modified: return "modified";
    case ChangeKind::deleted: return "deleted";
  }
  return "?";
}

const char* entry_type_name(EntryType t) {
  switch (t) {
    case EntryType::file: return "file";
    case EntryType::dir: return "dir";
    case EntryType::symlink: return "symlink";
    case EntryType::other: return "other";
  }
  return "?";
}

namespace {

Error io_error(const std::string& what, const std::string& path, int err) {
  Error e = make_error(Errc::io_error, what + ": " + std::strerror(err));
  e.file = path;
  return e;
}

EntryType type_of(mode_t m) {
  if (S_ISREG(m)) return EntryType::file;
  if (S_ISDIR(m)) return EntryType::dir;
  if (S_ISLNK(m)) return EntryType::symlink;
  return EntryType::other;
}

// overlayfs keeps its markers in user.overlay.* when mounted with userxattr (ours, inside a
// user namespace) and in trusted.overlay.* otherwise; accept both.
bool overlay_xattr_is(const std::string& path, const char* name, const char* value) {
  for (const char* ns : {"user.overlay.", "trusted.overlay."}) {
    char buf[8];
    ssize_t n = lgetxattr(path.c_str(), (std::string(ns) + name).c_str(), buf, sizeof buf);
    if (n == static_cast<ssize_t>(std::strlen(value)) && std::memcmp(buf, value, static_cast<size_t>(n)) == 0)
      return true;
  }
  return false;
}

bool is_whiteout(const std::string& path, const struct stat& st) {
  if (S_ISCHR(st.st_mode) && st.st_rdev == 0) return true;
  // "xwhiteouts" (Linux 6.7+): empty files marked with an overlay.whiteout xattr.
  return S_ISREG(st.st_mode) && st.st_size == 0 && overlay_xattr_is(path, "whiteout", "");
}

std::string read_link(const std::string& path) {
  char buf[4096];
  ssize_t n = readlink(path.c_str(), buf, sizeof buf);
  return n < 0 ? std::string() : std::string(buf, static_cast<size_t>(n));
}

Result<bool> same_bytes(const std::string& a, const std::string& b) {
  UniqueFd fa(open(a.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fa.valid()) return io_error("cannot read", a, errno);
  UniqueFd fb(open(b.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fb.valid()) return io_error("cannot read", b, errno);
  std::vector<char> ba(1 << 16), bb(1 << 16);
  for (;;) {
    ssize_t na = read(fa.get(), ba.data(), ba.size());
    if (na < 0) return io_error("cannot read", a, errno);
    size_t got = 0;
    while (got < static_cast<size_t>(na)) {
      ssize_t nb = read(fb.get(), bb.data() + got, static_cast<size_t>(na) - got);
      if (nb < 0) return io_error("cannot read", b, errno);
      if (nb == 0) return false;
      got += static_cast<size_t>(nb);
    }
    if (std::memcmp(ba.data(), bb.data(), got) != 0) return false;
    if (na == 0) {
      char extra;
      return read(fb.get(), &extra, 1) == 0;
    }
  }
}

std::string join(const std::string& rel, const std::string& name) {
  return rel.empty() ? name : rel + "/" + name;
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
  std::sort(names.begin(), names.end());
  return names;
}

class Walker {
 public:
  Walker(std::string upper, std::string lower) : upper_(std::move(upper)), lower_(std::move(lower)) {}

  // `rel` is a directory present in the upper. `hidden`: the lower's entries below it are not
  // visible (it or an ancestor is opaque, or replaced a non-directory). `lower_is_dir`: the
  // lower has a real directory at `rel` (reached through real directories only).
  Result<void> walk(const std::string& rel, bool hidden, bool lower_is_dir) {
    auto names = list_dir(upper_path(rel));
    if (!names) return std::move(names).error();
    for (const auto& n : *names)
      if (auto r = entry(join(rel, n), hidden, lower_is_dir); !r) return r;
    if (hidden && lower_is_dir) {
      auto lower_names = list_dir(lower_path(rel));
      if (!lower_names) return std::move(lower_names).error();
      std::set<std::string> in_upper(names->begin(), names->end());
      for (const auto& n : *lower_names) {
        if (in_upper.count(n)) continue;
        struct stat l;
        if (lstat(lower_path(join(rel, n)).c_str(), &l) == 0) deleted(join(rel, n), lower_path(join(rel, n)), l);
      }
    }
    return {};
  }

  std::vector<Change> take() {
    auto rank = [](ChangeKind k) { return k == ChangeKind::deleted ? 0 : k == ChangeKind::modified ? 1 : 2; };
    std::stable_sort(out_.begin(), out_.end(), [&](const Change& a, const Change& b) {
      if (a.path != b.path) return a.path < b.path;
      return rank(a.kind) < rank(b.kind);
    });
    return std::move(out_);
  }

 private:
  std::string upper_path(const std::string& rel) const { return rel.empty() ? upper_ : upper_ + "/" + rel; }
  std::string lower_path(const std::string& rel) const { return rel.empty() ? lower_ : lower_ + "/" + rel; }

  Result<void> entry(const std::string& rel, bool parent_hidden, bool parent_lower_is_dir) {
    const std::string up = upper_path(rel), lp = lower_path(rel);
    struct stat u, l;
    if (lstat(up.c_str(), &u) != 0) return io_error("cannot stat", up, errno);
    bool in_lower = parent_lower_is_dir && lstat(lp.c_str(), &l) == 0;

    if (is_whiteout(up, u)) {
      if (in_lower) deleted(rel, lp, l);
      return {};
    }
    if (S_ISDIR(u.st_mode)) {
      bool opaque = overlay_xattr_is(up, "opaque", "y");
      if (in_lower && S_ISDIR(l.st_mode)) {
        if ((u.st_mode & 07777) != (l.st_mode & 07777)) {
          Change c = now(rel, ChangeKind::modified, u, up);
          c.mode_from = l.st_mode & 07777;
          out_.push_back(c);
        }
        return walk(rel, parent_hidden || opaque, true);
      }
      if (in_lower) deleted(rel, lp, l);
      out_.push_back(now(rel, ChangeKind::added, u, up));
      return walk(rel, true, false);
    }
    if (!in_lower || type_of(u.st_mode) != type_of(l.st_mode)) {
      if (in_lower) deleted(rel, lp, l);
      out_.push_back(now(rel, ChangeKind::added, u, up));
      return {};
    }
    Change c = now(rel, ChangeKind::modified, u, up);
    bool mode_changed = (u.st_mode & 07777) != (l.st_mode & 07777) && !S_ISLNK(u.st_mode);
    if (mode_changed) c.mode_from = l.st_mode & 07777;
    if (S_ISLNK(u.st_mode)) {
      c.target_from = read_link(lp);
      c.content_changed = c.target != c.target_from;
      if (!c.content_changed) return {};
    } else if (S_ISREG(u.st_mode)) {
      if (u.st_size != l.st_size) {
        c.content_changed = true;
        c.size_from = static_cast<std::uint64_t>(l.st_size);
      } else {
        auto same = same_bytes(up, lp);
        if (!same) return std::move(same).error();
        c.content_changed = !*same;
      }
    } else {
      c.content_changed = u.st_rdev != l.st_rdev;
    }
    bool touched = u.st_mtim.tv_sec != l.st_mtim.tv_sec || u.st_mtim.tv_nsec != l.st_mtim.tv_nsec;
    if (c.content_changed || mode_changed || touched) out_.push_back(c);
    return {};
  }

  Change now(const std::string& rel, ChangeKind kind, const struct stat& st, const std::string& path) {
    Change c;
    c.path = rel;
    c.kind = kind;
    c.type = type_of(st.st_mode);
    c.size = S_ISDIR(st.st_mode) ? 0 : static_cast<std::uint64_t>(st.st_size);
    c.mode = st.st_mode & 07777;
    if (S_ISLNK(st.st_mode)) c.target = read_link(path);
    return c;
  }

  void deleted(const std::string& rel, const std::string& lower_path, const struct stat& l) {
    Change c = now(rel, ChangeKind::deleted, l, lower_path);
    out_.push_back(c);
  }

  std::string upper_, lower_;
  std::vector<Change> out_;
};

std::string mode_text(unsigned m) { return fmt::format("{:04o}", m); }

}  // namespace

Result<std::vector<Change>> diff_trees(const std::string& upper, const std::string& lower) {
  Walker w(upper, lower);
  struct stat l;
  bool lower_is_dir = lstat(lower.c_str(), &l) == 0 && S_ISDIR(l.st_mode);
  if (auto r = w.walk("", false, lower_is_dir); !r) return std::move(r).error();
  return w.take();
}

nlohmann::ordered_json change_to_json(const Change& c) {
  nlohmann::ordered_json j;
  j["path"] = c.path;
  j["kind"] = change_kind_name(c.kind);
  j["type"] = entry_type_name(c.type);
  j["size"] = c.size;
  j["mode"] = mode_text(c.mode);
  if (c.kind == ChangeKind::modified) {
    j["content_changed"] = c.content_changed;
    if (c.size_from) j["size_from"] = *c.size_from;
    if (c.mode_from) j["mode_from"] = mode_text(*c.mode_from);
  }
  if (c.type == EntryType::symlink) {
    j["target"] = c.target;
    if (c.kind == ChangeKind::modified) j["target_from"] = c.target_from;
  }
  return j;
}

std::string change_to_line(const Change& c) {
  const char* letter = c.kind == ChangeKind::added ? "A" : c.kind == ChangeKind::modified ? "M" : "D";
  std::string line = fmt::format("{}  {}{}", letter, c.path, c.type == EntryType::dir ? "/" : "");
  if (c.type == EntryType::symlink)
    line += c.kind == ChangeKind::modified ? fmt::format(" -> {} (was {})", c.target, c.target_from)
                                           : " -> " + c.target;
  if (c.mode_from) line += fmt::format(" (mode {} -> {})", mode_text(*c.mode_from), mode_text(c.mode));
  if (c.kind == ChangeKind::modified && !c.content_changed && !c.mode_from) line += " (metadata only)";
  return line;
}

std::string changes_stat(const std::vector<Change>& changes) {
  std::string out;
  size_t added = 0, modified = 0, deleted = 0;
  std::int64_t delta = 0;
  for (const auto& c : changes) {
    std::int64_t d = 0;
    if (c.kind == ChangeKind::added) { ++added; d = static_cast<std::int64_t>(c.size); }
    if (c.kind == ChangeKind::deleted) { ++deleted; d = -static_cast<std::int64_t>(c.size); }
    if (c.kind == ChangeKind::modified) {
      ++modified;
      d = static_cast<std::int64_t>(c.size) - static_cast<std::int64_t>(c.size_from.value_or(c.size));
    }
    out += fmt::format(" {} {}{} | {:+d} bytes\n", c.kind == ChangeKind::added ? "A" : c.kind == ChangeKind::modified ? "M" : "D",
                       c.path, c.type == EntryType::dir ? "/" : "", d);
    delta += d;
  }
  out += fmt::format(" {} added, {} modified, {} deleted, {:+d} bytes\n", added, modified, deleted, delta);
  return out;
}

}  // namespace corral::workspace
