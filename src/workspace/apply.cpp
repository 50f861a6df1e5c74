// apply_layer(): conflict check over every path first, then deletions, then writes.
#include "workspace/apply.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "workspace/tree.hpp"

namespace corral::workspace {
namespace {

Error io_error(const std::string& what, const std::string& path, int err) {
  Error e = make_error(Errc::io_error, what + ": " + std::strerror(err));
  e.file = path;
  return e;
}

std::int64_t ctime_ns(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
}

bool has_origin(const std::string& path) {
  for (const char* name : {"user.overlay.origin", "trusted.overlay.origin"})
    if (lgetxattr(path.c_str(), name, nullptr, 0) >= 0) return true;
  return false;
}

class ConflictFinder {
 public:
  explicit ConflictFinder(const Layer& layer) : layer_(layer) {}

  // A host path changed since the layer's creation (and not by our own apply).
  bool changed(const std::string& rel, const struct stat& st) const {
    auto it = layer_.base.applied.find(rel);
    if (it != layer_.base.applied.end() && it->second == ctime_ns(st)) return false;
    return ctime_ns(st) > layer_.base.created_ns;
  }

  void check_tree(const std::string& rel) {
    const std::string host = layer_.base.lower + "/" + rel;
    struct stat st;
    if (lstat(host.c_str(), &st) != 0) return;
    const bool self_changed = changed(rel, st);
    if (!S_ISDIR(st.st_mode)) {
      if (self_changed) found.push_back(rel);
      return;
    }
    DIR* d = opendir(host.c_str());
    if (!d) {
      found.push_back(rel);  // cannot tell: refuse rather than delete unseen files
      return;
    }
    std::vector<std::string> names;
    while (dirent* e = readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
    closedir(d);
    const std::size_t before = found.size();
    for (const auto& n : names) check_tree(rel + "/" + n);
    // A directory changes when entries come or go: name it if no entry inside explains it.
    if (self_changed && found.size() == before) found.push_back(rel);
  }

  void check(const Change& c) {
    const std::string host = layer_.base.lower + "/" + c.path;
    struct stat st;
    bool on_host = lstat(host.c_str(), &st) == 0;
    switch (c.kind) {
      case ChangeKind::deleted:
        check_tree(c.path);
        replaced_.insert(c.path);  // a type change: its addition follows, sorted after it
        break;
      case ChangeKind::modified:
        if (!on_host) found.push_back(c.path);
        else if (c.type == EntryType::dir) {
          // A directory's ctime moves with every entry added to it; only its mode matters here.
          if ((st.st_mode & 07777) != c.mode_from.value_or(c.mode)) found.push_back(c.path);
        } else if (changed(c.path, st)) found.push_back(c.path);
        break;
      case ChangeKind::added:
        if (on_host && !replaced_.count(c.path)) found.push_back(c.path);  // appeared since the diff
        else if (has_origin(layer_.upper() + "/" + c.path)) found.push_back(c.path);
        break;
    }
  }

  std::vector<std::string> found;

 private:
  const Layer& layer_;
  std::set<std::string> replaced_;
};

std::string relative_path(const Layer& layer, std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  if (p == layer.base.lower) return "";
  if (p.rfind(layer.base.lower + "/", 0) == 0) return p.substr(layer.base.lower.size() + 1);
  if (p.rfind("./", 0) == 0) p = p.substr(2);
  return p == "." ? "" : p;
}

bool selected(const std::string& path, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  for (const auto& f : filters)
    if (f.empty() || path == f || path.rfind(f + "/", 0) == 0) return true;
  return false;
}

Result<void> write_entry(const Layer& layer, const Change& c) {
  const std::string src = layer.upper() + "/" + c.path, dst = layer.base.lower + "/" + c.path;
  switch (c.type) {
    case EntryType::dir:
      if (mkdir(dst.c_str(), 0700) != 0 && errno != EEXIST) return io_error("cannot create directory", dst, errno);
      return {};  // its mode is set last, once its contents are written
    case EntryType::file:
      return copy_file_to(src, dst);
    case EntryType::symlink: {
      const std::string tmp = dst + ".corral-tmp";
      unlink(tmp.c_str());
      if (symlink(c.target.c_str(), tmp.c_str()) != 0) return io_error("cannot create link", tmp, errno);
      if (rename(tmp.c_str(), dst.c_str()) != 0) return io_error("cannot rename into place", dst, errno);
      return {};
    }
    case EntryType::other: {
      struct stat st;
      if (lstat(src.c_str(), &st) != 0) return io_error("cannot stat", src, errno);
      unlink(dst.c_str());
      if (mknod(dst.c_str(), st.st_mode, st.st_rdev) != 0) return io_error("cannot create node", dst, errno);
      return {};
    }
  }
  return {};
}

}  // namespace

Result<std::vector<std::string>> host_conflicts(Layer& layer, const std::vector<Change>& changes) {
  ConflictFinder finder(layer);
  for (const auto& c : changes) finder.check(c);
  return finder.found;
}

Result<std::vector<Change>> apply_layer(Layer& layer, const ApplyOptions& options) {
  auto all = diff_layer(layer);
  if (!all) return std::move(all).error();
  std::vector<std::string> filters;
  for (const auto& p : options.paths) filters.push_back(relative_path(layer, p));
  std::vector<Change> picked;
  std::set<std::string> picked_paths;
  for (const auto& c : *all)
    if (selected(c.path, filters)) picked_paths.insert(c.path);
  // A picked path inside a directory the sandbox created needs that directory too.
  for (const auto& c : *all)
    if (c.kind == ChangeKind::added && c.type == EntryType::dir)
      for (const auto& p : std::set<std::string>(picked_paths))
        if (p.rfind(c.path + "/", 0) == 0) picked_paths.insert(c.path);
  for (const auto& c : *all)
    if (picked_paths.count(c.path)) picked.push_back(c);
  if (!filters.empty() && picked.empty())
    return make_error(Errc::invalid_input, "--paths matched none of the changes (corral diff lists them)");

  auto conflicts = host_conflicts(layer, picked);
  if (!conflicts) return std::move(conflicts).error();
  if (!conflicts->empty()) {
    std::string msg = "the host changed since the sandbox started; nothing was applied. Changed "
                      "on the host:";
    for (const auto& p : *conflicts) msg += "\n  " + layer.base.lower + "/" + p;
    msg += "\nApply the other paths with --paths, or merge these by hand.";
    return make_error(Errc::conflict, msg);
  }
  if (options.dry_run) return picked;

  for (const auto& c : picked)
    if (c.kind == ChangeKind::deleted)
      if (auto r = remove_tree(layer.base.lower + "/" + c.path); !r) return std::move(r).error();
  for (const auto& c : picked)
    if (c.kind != ChangeKind::deleted)
      if (auto r = write_entry(layer, c); !r) return std::move(r).error();
  // Modes last, deepest first, so a read-only directory does not block writing into it.
  for (auto it = picked.rbegin(); it != picked.rend(); ++it) {
    if (it->kind == ChangeKind::deleted || it->type == EntryType::symlink) continue;
    const std::string dst = layer.base.lower + "/" + it->path;
    if (chmod(dst.c_str(), it->mode) != 0) return io_error("cannot set the mode of", dst, errno);
  }
  for (const auto& c : picked) {
    struct stat st;
    if (c.kind != ChangeKind::deleted && lstat((layer.base.lower + "/" + c.path).c_str(), &st) == 0)
      layer.base.applied[c.path] = ctime_ns(st);
  }
  if (auto r = save_base(layer); !r) return std::move(r).error();
  return picked;
}

}  // namespace corral::workspace
