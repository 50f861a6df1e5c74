// SHA-256 of a byte string as lowercase hex (nettle: no library initialisation on the hot path).
#pragma once

#include <string>
#include <string_view>

namespace corral {

std::string sha256_hex(std::string_view data);

}  // namespace corral
