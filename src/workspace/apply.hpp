// Applying a layer's changes to the host directory below it, refusing where the host changed
// since the layer was created.
//
// What is detected, exactly: the kernel sets a file's ctime on every change of its content,
// mode, owner or links, user space cannot set it back, and ctimes are ordered across files. A
// layer's creation stamp is the ctime of a file it made, taken so that host changes before it
// have ctime <= stamp and changes after have ctime > stamp (layer.cpp). So a host path with a
// ctime past the stamp changed since. A deleted directory's whole host subtree is checked. A
// file the sandbox copied up (overlayfs marks it with an origin xattr) that is gone from the
// host was deleted there. Not detected: changes made while the system clock was set back.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "workspace/diff.hpp"
#include "workspace/layer.hpp"

namespace corral::workspace {

struct ApplyOptions {
  std::vector<std::string> paths;  // relative to the workspace (or absolute below it); empty: all
  bool dry_run = false;            // check and list, change nothing
};

// The host paths that changed since the layer was created among those `changes` touch.
Result<std::vector<std::string>> host_conflicts(Layer& layer, const std::vector<Change>& changes);

// Copies the selected changes onto layer.base.lower: adds, edits (content, mode, times),
// deletions, symlinks. Errc::conflict, naming every conflicting path, when the host changed
// under any of them — then nothing is written. Returns the changes applied.
Result<std::vector<Change>> apply_layer(Layer& layer, const ApplyOptions& options);

}  // namespace corral::workspace
