// Writing a file atomically: readers see the old content or the new, never a part.
#pragma once

#include <string>

#include "common/result.hpp"

namespace corral {

// Writes `content` to a temporary file beside `path`, fsyncs it and renames it over `path`.
Result<void> write_file_atomic(const std::string& path, const std::string& content,
                               unsigned mode = 0644);

}  // namespace corral
