#include "linux/fs_read_check.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace corral {
namespace {

FsGuard::Id id_of(const UniqueFd& fd) {
  struct stat st;
  if (!fd.valid() || fstat(fd.get(), &st) != 0) return {0, 0};
  return {st.st_dev, st.st_ino};
}

const FsGuard::Ids& learn_ids(const Caller& c, const FsGuard& g) {
  FsGuard::Ids& ids = *g.ids;
  if (ids.known) return ids;
  for (const auto& d : g.read_deny) ids.deny.push_back(id_of(c.resolve(d, true)));
  for (const auto& a : g.read_allow) ids.allow.push_back(id_of(c.resolve(a, true)));
  ids.known = true;
  return ids;
}

int index_of(const std::vector<FsGuard::Id>& ids, const FsGuard::Id& id) {
  if (id == FsGuard::Id{0, 0}) return -1;
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == id) return static_cast<int>(i);
  return -1;
}

}  // namespace

std::string read_deny_reached(const Caller& c, const std::string& path, const FsGuard& g) {
  // By name, where the name is what the kernel resolves (no ".." after a symlink).
  const std::string raw = c.raw_of(path);
  if (raw == path) {
    std::string best;
    bool denied = false;
    for (const auto& d : g.read_deny)
      if (at_or_beneath(path, d) && d.size() >= best.size()) best = d, denied = true;
    for (const auto& a : g.read_allow)
      if (at_or_beneath(path, a) && a.size() > best.size()) best = a, denied = false;
    if (denied) return best;
  }

  // Other names for the same places (a symlinked parent, ".." after a symlink), resolved as
  // the kernel does: a ".." after a symlink from where the link led (raw_of), not lexically.
  const FsGuard::Ids& ids = learn_ids(c, g);
  UniqueFd at = c.resolve(raw, true);
  struct stat st;
  if (at.valid() && fstat(at.get(), &st) == 0 && !S_ISDIR(st.st_mode)) {
    // A file: every denied file shows the same empty mask; prefer the entry of its name.
    std::string found;
    for (size_t i = 0; i < g.read_deny.size(); ++i)
      if (ids.deny[i] == FsGuard::Id{st.st_dev, st.st_ino} &&
          (found.empty() || base_name(g.read_deny[i]) == base_name(path)))
        found = g.read_deny[i];
    return found;
  }
  // A directory, or a name that does not resolve (a mask's mode-000 root stops the lookup):
  // from the nearest directory on the way, up to the first mount point of the view.
  std::string dir = path;
  if (!at.valid() && raw != path) at = c.resolve(parent_of(raw), true);  // where it looks
  while (!at.valid() && dir != "/") {
    dir = parent_of(dir);
    at = c.resolve(dir, true);
  }
  for (int depth = 0; depth < 256 && at.valid(); ++depth) {
    FsGuard::Id id = id_of(at);
    if (int i = index_of(ids.deny, id); i >= 0) return g.read_deny[static_cast<size_t>(i)];
    if (index_of(ids.allow, id) >= 0) return "";
    UniqueFd up(openat(at.get(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (id_of(up) == id) return "";  // the root
    at = std::move(up);
  }
  return "";
}

}  // namespace corral
