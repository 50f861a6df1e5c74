// `corral diff --patch`: a unified diff of the text files a layer changed, made by running
// diff(1) -u on the lower and upper copies (binary files are named, not shown).
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "workspace/diff.hpp"
#include "workspace/layer.hpp"

namespace corral::workspace {

Result<std::string> unified_patch(const Layer& layer, const std::vector<Change>& changes);

}  // namespace corral::workspace
