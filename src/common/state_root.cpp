// corral's state directory (see state_root.hpp).
#include "common/state_root.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace corral {

Result<std::string> corral_state_root() {
  if (const char* h = std::getenv("CORRAL_HOME"); h && *h) {
    if (*h != '/')
      return make_error(Errc::invalid_input,
                        std::string("CORRAL_HOME must be an absolute path, not \"") + h + "\"");
    // As a path the kernel would name it ("a/./b/", "a//b" are "a/b"): it is matched by name.
    std::string p = std::filesystem::path(h).lexically_normal().string();
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return p;
  }
  if (geteuid() == 0) return std::string("/var/lib/corral");
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x == '/') return std::string(x) + "/corral";
  if (const char* home = std::getenv("HOME"); home && *home == '/')
    return std::string(home) + "/.local/share/corral";
  return make_error(Errc::invalid_input,
                    "cannot place corral's state: set CORRAL_HOME, XDG_DATA_HOME or HOME");
}

}  // namespace corral
