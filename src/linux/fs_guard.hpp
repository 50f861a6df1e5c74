// What the seccomp monitor checks a watched filesystem call against, beyond what the mounts
// refuse by themselves. Paths are absolute and normal, as seen inside the sandbox.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace corral {

struct FsGuard {
  // write_deny paths that did not exist at start, so no mount protects them: writes that
  // would create or reach them are refused by the monitor (EROFS).
  std::vector<std::string> absent_deny;
  // Every write_deny path (existing or not) and corral's state directory: moving, replacing
  // or removing a directory or symlink on the way to one (a rename of `.git`, an unlink of a
  // symlinked `.git`) would let the path be re-created without its protection, so the monitor
  // refuses those (EROFS).
  std::vector<std::string> keep_in_place;
  // With filesystem.watch_reads: opens are watched too, and one that reaches a read mask is
  // recorded. `read_deny`: the masks' mount points; `read_allow`: every other mount point of
  // the view (a read_allow re-opening a path beneath a mask, the workspace, "/"...). The
  // deepest one above a path decides, as in the mount view.
  bool watch_reads = false;
  std::vector<std::string> read_deny, read_allow;

  // The read check's cache: the identities (device, inode) of the entries above as the
  // sandbox sees them, filled on first use (mount points keep theirs while the sandbox lives)
  // and shared by every copy of the guard (each exec's monitor in a persistent sandbox).
  using Id = std::pair<dev_t, ino_t>;
  struct Ids {
    bool known = false;
    std::vector<Id> deny, allow;  // {0, 0}: could not be resolved
    // keep_in_place: the identities of every existing name on the way to each entry (the
    // directories, and symlinks themselves), index-aligned with `ways_to`; filled on first use.
    bool ways_known = false;
    std::vector<Id> ways;
    std::vector<size_t> ways_to;
    std::vector<bool> keep_exists;  // per keep_in_place entry, when learned
  };
  std::shared_ptr<Ids> ids = std::make_shared<Ids>();
};

}  // namespace corral
