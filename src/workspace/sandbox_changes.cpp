// A sandbox's layer, base HEAD and sourced changes, for `corral commit`.
#include "workspace/sandbox_changes.hpp"

#include <sys/stat.h>

#include "workspace/run_layer.hpp"

namespace corral::workspace {

Result<SandboxChanges> layer_changes(const Layer& layer) {
  auto changes = diff_layer(layer);
  if (!changes) return std::move(changes).error();
  SandboxChanges out;
  out.layer_dir = layer.dir;
  out.lower = layer.base.lower;
  out.base_head = layer.base.git_head;
  for (auto& c : *changes) {
    std::string source = c.kind == ChangeKind::deleted ? "" : layer.upper() + "/" + c.path;
    out.changes.push_back({std::move(c), std::move(source)});
  }
  return out;
}

Result<SandboxChanges> sandbox_changes(const std::string& name) {
  if (auto r = validate_tag(name, "sandbox name"); !r) return std::move(r).error();
  const std::string dir = state_home() + "/sandboxes/" + name + "/workspace";
  struct stat st;
  if (stat(dir.c_str(), &st) != 0)
    return make_error(Errc::not_found, "no sandbox named \"" + name +
                                           "\" with a copy-on-write workspace (looked in " + dir + ")");
  auto layer = open_layer(dir);
  if (!layer) return std::move(layer).error();
  return layer_changes(*layer);
}

}  // namespace corral::workspace
