// Layer lifecycle of one-shot runs.
#include "workspace/run_layer.hpp"

#include <unistd.h>

#include <sys/stat.h>

#include <cstdlib>
#include <optional>

#include "workspace/diff.hpp"
#include "workspace/tree.hpp"

namespace corral::workspace {

std::string state_home() {
  const char* over = getenv("CORRAL_HOME");
  if (over && *over) return over;
  if (geteuid() == 0) return "/var/lib/corral";
  const char* xdg = getenv("XDG_DATA_HOME");
  if (xdg && *xdg == '/') return std::string(xdg) + "/corral";
  const char* home = getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.local/share/corral";
}

Result<RunLayer> prepare_run_layer(const std::string& lower, const std::string& run_id,
                                   const std::string& layer_dir) {
  // overlayfs refuses an upper inside its lower (ELOOP); say why before trying.
  const std::string where = layer_dir.empty() ? state_home() : layer_dir;
  if (where == lower || where.rfind(lower == "/" ? lower : lower + "/", 0) == 0) {
    Error e = make_error(Errc::invalid_input,
                         "the layer would live at " + where + ", inside the copy-on-write workspace " +
                             lower + "; set CORRAL_HOME (or --layer DIR) to a directory outside it");
    e.key = "--workspace";
    return e;
  }
  std::optional<Layer> layer;
  struct stat st;
  if (!layer_dir.empty() && stat(layer_dir.c_str(), &st) == 0) {
    auto existing = open_layer(layer_dir);
    if (!existing) return std::move(existing).error();
    if (existing->base.lower != lower) {
      Error e = make_error(Errc::invalid_input, "this layer covers " + existing->base.lower +
                           ", not the workspace " + lower);
      e.key = "--layer";
      return e;
    }
    layer = std::move(*existing);
  } else {
    if (layer_dir.empty())
      if (auto r = validate_tag(run_id, "run id"); !r) return std::move(r).error();
    auto made = create_layer(layer_dir.empty() ? state_home() + "/runs/" + run_id + "/workspace" : layer_dir, lower);
    if (!made) return std::move(made).error();
    layer = std::move(*made);
  }
  auto lock = lock_layer(*layer);
  if (!lock) return std::move(lock).error();
  return RunLayer{std::move(*layer), std::move(*lock), !layer_dir.empty()};
}

Result<std::string> finish_run_layer(RunLayer& run, RunRecord& record) {
  auto changes = diff_layer(run.layer);
  if (!changes) return std::move(changes).error();
  nlohmann::ordered_json ws;
  ws["mode"] = "cow";
  auto list = nlohmann::ordered_json::array();
  for (const auto& c : *changes) {
    record.writes.push_back(run.layer.base.lower + "/" + c.path);
    list.push_back(change_to_json(c));
  }
  const bool keep = run.named || !changes->empty();
  ws["layer"] = keep ? nlohmann::ordered_json(run.layer.dir) : nullptr;
  ws["kept"] = keep;
  ws["changes"] = list;
  record.workspace = std::move(ws);
  record.writes_exact = true;
  run.lock.fd.reset();
  if (keep) return run.layer.dir;
  std::string run_dir = run.layer.dir.substr(0, run.layer.dir.rfind('/'));
  if (auto r = remove_tree(run_dir); !r) return std::move(r).error();
  return std::string();
}

}  // namespace corral::workspace
