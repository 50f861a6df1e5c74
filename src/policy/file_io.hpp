// Reading the small text files a policy comes from (TOML policies, srt settings JSON).
#pragma once

#include <string>

#include "common/result.hpp"

namespace corral::policy_io {

// The whole file. Errors name the file: not_found when it does not exist, io_error when it
// cannot be read (permissions, a directory, too large). `what` names the file's role in the
// message ("policy file", "srt settings file").
Result<std::string> read_text_file(const std::string& path, const char* what);

}  // namespace corral::policy_io
