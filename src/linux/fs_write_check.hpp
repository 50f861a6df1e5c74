// Observing writes the sandbox's filesystem view refuses. The seccomp filter sends write-type
// calls (open with a write flag, creat, mkdir, unlink, rename, link, symlink, truncate, chmod,
// chown) to the
// supervisor, which looks at where they land, in the caller's own root, and lets them continue:
// the kernel then refuses the ones that land on a read-only mount, and the supervisor has
// recorded them. It decides nothing (the caller could change its memory after we looked); it
// only witnesses.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "linux/fs_guard.hpp"

namespace corral {

// The write-type calls the filter traps, by libseccomp name. Names the native architecture
// lacks (open, mkdir, ... on aarch64) are skipped by the compiler.
const std::vector<std::string>& watched_write_syscalls();

struct FsWriteCheck {
  std::string op;    // e.g. "openat(O_WRONLY|O_CREAT|O_TRUNC)", "unlinkat", "renameat2"
  std::string path;  // absolute, as the caller sees it (the first read-only one for a rename)
  bool refused = false;  // the kernel will fail it with `error`
  // "EROFS" (a read-only mount), "EXDEV" (a hard link across mounts) or "EBUSY" (removing
  // or replacing a mount point, e.g. a write_deny file)
  std::string error;
  // A write_deny path that did not exist at start (no mount protects it) which this call would
  // create, graft (a symlink or a renamed tree at it or above it) or write beneath; "" if none.
  std::string absent_deny;
  // A keep_in_place path (fs_guard.hpp) this call would move, replace or remove the way to;
  // "" if none.
  std::string unmoors;
  // The name the call writes when `path` names something else (a hard link refused with
  // EXDEV is recorded by its source); "" when it is `path`.
  std::string target;
  // An open for reading only (no write flag, no O_CREAT/O_TRUNC), and, with watch_reads, the
  // read_deny path it reaches ("" if none): the mask makes it fail or read nothing.
  bool read_only_open = false;
  std::string read_deny;
};

// Reads the path arguments of `syscall` (one of watched_write_syscalls()) from process `pid`
// (a pid in the caller's pid namespace) and resolves them inside that process's root. nullopt
// when the call's arguments cannot be read (the process died, a bad pointer): nothing to say.
// `guard`: absent write_deny paths, matched by the call's path and, through symlinks and "..",
// by the identity of the directory it writes in; with watch_reads, the read masks too.
std::optional<FsWriteCheck> check_fs_write(pid_t pid, const std::string& syscall,
                                           const std::uint64_t args[6],
                                           const FsGuard& guard = {});

}  // namespace corral
