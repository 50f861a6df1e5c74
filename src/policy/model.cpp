// Names of the policy model's enums, shared by every parser and printer.
#include "policy/load.hpp"
#include "policy/policy.hpp"

namespace corral {

const char* net_mode_name(NetMode m) {
  switch (m) {
    case NetMode::none: return "none";
    case NetMode::allowlist: return "allowlist";
    case NetMode::all: return "all";
  }
  return "none";
}

Result<NetMode> parse_net_mode(const std::string& text) {
  if (text == "none") return NetMode::none;
  if (text == "allowlist") return NetMode::allowlist;
  if (text == "all") return NetMode::all;
  return make_error(Errc::invalid_input,
                    "invalid network mode \"" + text + "\": use none, allowlist or all");
}

}  // namespace corral
