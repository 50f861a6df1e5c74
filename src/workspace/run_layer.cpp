// Layer lifecycle of one-shot runs.
#include "workspace/run_layer.hpp"

#include <unistd.h>

#include <cstdlib>

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

Result<RunLayer> prepare_run_layer(const std::string& lower, const std::string& run_id) {
  if (auto r = validate_tag(run_id, "run id"); !r) return std::move(r).error();
  auto layer = create_layer(state_home() + "/runs/" + run_id + "/workspace", lower);
  if (!layer) return std::move(layer).error();
  auto lock = lock_layer(*layer);
  if (!lock) return std::move(lock).error();
  return RunLayer{std::move(*layer), std::move(*lock)};
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
  const bool keep = !changes->empty();
  ws["layer"] = keep ? nlohmann::ordered_json(run.layer.dir) : nullptr;
  ws["kept"] = keep;
  ws["changes"] = list;
  record.workspace = std::move(ws);
  run.lock.fd.reset();
  if (keep) return run.layer.dir;
  std::string run_dir = run.layer.dir.substr(0, run.layer.dir.rfind('/'));
  if (auto r = remove_tree(run_dir); !r) return std::move(r).error();
  return std::string();
}

}  // namespace corral::workspace
