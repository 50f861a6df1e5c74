// Where corral keeps its state (sandboxes, run layers): $CORRAL_HOME; else /var/lib/corral for
// root; else $XDG_DATA_HOME/corral; else ~/.local/share/corral.
#pragma once

#include <string>

#include "common/result.hpp"

namespace corral {

Result<std::string> corral_state_root();

}  // namespace corral
