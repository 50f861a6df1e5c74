// Whole-tree copies and removals that keep what overlayfs stores in a layer: whiteouts (char
// devices 0:0), opaque/origin xattrs, modes, owners (when allowed), symlinks and times.
#pragma once

#include <string>

#include "common/result.hpp"

namespace corral::workspace {

// Copies the tree at `src` to `dst` (which must not exist). File data is reflinked where the
// filesystem can, copied in the kernel otherwise. Hard links become separate files.
Result<void> copy_tree(const std::string& src, const std::string& dst);

// Removes `path` and everything below it; directories without permissions (overlayfs leaves
// mode-000 work dirs) are opened up first. A missing path is not an error.
Result<void> remove_tree(const std::string& path);

// Copies one file's data, mode and times to `dst` (created or replaced via a temp + rename).
Result<void> copy_file_to(const std::string& src, const std::string& dst);

// Copies the xattrs of `src` to `dst` (no symlink following); those the caller may not set
// (trusted.*, security.* as an ordinary user) are skipped.
void copy_xattrs(const std::string& src, const std::string& dst);

}  // namespace corral::workspace
