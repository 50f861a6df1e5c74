// Checkpoints of a layer: L/checkpoints/TAG/upper is a copy of the upper (reflinked where the
// filesystem can, so its cost is the size of the changes, never of the workspace), with
// L/checkpoints/TAG/meta.json. Rollback swaps a copy of it in atomically (renameat2 exchange),
// deletions and opaque dirs included, and needs the layer unmounted.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "workspace/layer.hpp"

namespace corral::workspace {

struct CheckpointInfo {
  std::string tag;
  std::string created;   // RFC 3339
  std::size_t changes = 0;  // entries `corral diff` listed when it was taken
  bool live = false;     // taken while the layer was mounted (a running sandbox may have been
                         // mid-write; stop or pause it for an exact snapshot)
};

// Copies the upper to checkpoints/TAG. Errc::invalid_input when TAG is malformed or taken.
Result<CheckpointInfo> create_checkpoint(const Layer& layer, const std::string& tag);

// Makes the upper exactly what it was at checkpoint TAG. Errc::not_found for an unknown tag;
// Errc::busy while the layer is mounted: overlayfs forbids changing an upper under a live
// mount, so a running sandbox must be stopped (or its supervisor must unmount, roll back and
// remount inside its namespace).
Result<void> rollback_to_checkpoint(const Layer& layer, const std::string& tag);

// Checkpoints, oldest first.
Result<std::vector<CheckpointInfo>> list_checkpoints(const Layer& layer);

// Creates `new_dir` as a layer over the same lower whose upper is a copy of `layer`'s current
// upper (not its checkpoints); the two diverge from then on.
Result<Layer> fork_layer(const Layer& layer, const std::string& new_dir);

}  // namespace corral::workspace
