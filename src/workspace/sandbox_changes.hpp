// What `corral commit NAME` needs from a sandbox's copy-on-write workspace, without libgit2:
// the host directory below the layer, the git HEAD it started from (base.json), and every
// change with the file in the layer's upper that holds its new content.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "workspace/diff.hpp"

namespace corral::workspace {

struct SourcedChange {
  Change change;
  std::string source;  // absolute path in L/upper holding the new entry; empty for deletions
};

struct SandboxChanges {
  std::string layer_dir;                // $CORRAL_HOME/sandboxes/NAME/workspace
  std::string lower;                    // the workspace's host directory
  std::optional<std::string> base_head; // its HEAD when the layer was created (nullopt: no repo)
  std::vector<SourcedChange> changes;   // sorted by path, as diff_layer lists them
};

// Errc::invalid_input for a malformed NAME, Errc::not_found when NAME has no copy-on-write
// workspace.
Result<SandboxChanges> sandbox_changes(const std::string& name);
// The same for any layer directory.
Result<SandboxChanges> layer_changes(const Layer& layer);

}  // namespace corral::workspace
