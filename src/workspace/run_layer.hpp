// The copy-on-write workspace of a one-shot `corral run`: a layer under the state directory
// (runs/RUN-ID/workspace), locked while the sandbox lives, turned into the record's `writes`
// afterwards. A layer with changes is kept (an agent's work is never dropped silently) and its
// path printed; one without changes is removed.
#pragma once

#include <string>

#include "common/result.hpp"
#include "enforce/record.hpp"
#include "workspace/layer.hpp"

namespace corral::workspace {

// corral's state directory: $CORRAL_HOME, else /var/lib/corral for root, else
// $XDG_DATA_HOME/corral (default ~/.local/share/corral).
std::string state_home();

struct RunLayer {
  Layer layer;
  LayerLock lock;
  bool named = false;  // the caller chose the layer (--layer): always kept
};

// Creates and locks runs/RUN_ID/workspace over `lower`; or, with `layer_dir`, continues that
// layer (its lower must be `lower`) or creates it there.
Result<RunLayer> prepare_run_layer(const std::string& lower, const std::string& run_id,
                                   const std::string& layer_dir = "");

// After the sandbox is gone: fills record.writes (absolute paths) and record.workspace (mode,
// layer, kept, changes), then keeps the layer when it holds changes (or was named) or removes
// the run's directory when it holds none. Returns the kept layer's directory, empty when removed.
Result<std::string> finish_run_layer(RunLayer& run_layer, RunRecord& record);

}  // namespace corral::workspace
