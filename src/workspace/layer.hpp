// A copy-on-write workspace layer: a directory L holding what a sandbox wrote over a host
// directory (the lower). L/upper and L/work are overlayfs' upper and work dirs, L/base.json
// says what lies below, L/checkpoints/TAG/ holds snapshots, L/lock is held while mounted.
// Every operation takes the layer directory as a parameter, so one-shot runs
// (runs/ID/workspace) and named sandboxes (sandboxes/NAME/workspace) share this code.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/result.hpp"
#include "linux/fd.hpp"

namespace corral::workspace {

struct LayerBase {
  std::string lower;                      // absolute host directory the layer covers
  std::string created;                    // RFC 3339, for people
  // The ctime of L/created, in ns: host changes before the layer's creation have ctime <= it,
  // changes after have ctime > it (layer.cpp: stamp_start; apply.cpp).
  std::int64_t created_ns = 0;
  std::optional<std::string> git_head;    // the lower's HEAD commit at creation, if a git repo
  std::optional<std::string> forked_from; // the layer this one was forked from
  // Host paths `apply` wrote, with the ctime they got: the host-change check must not count
  // corral's own writes as the host's.
  std::map<std::string, std::int64_t> applied;
};

struct Layer {
  std::string dir;
  LayerBase base;
  std::string upper() const { return dir + "/upper"; }
  std::string work() const { return dir + "/work"; }
  std::string checkpoints() const { return dir + "/checkpoints"; }
  std::string lock_path() const { return dir + "/lock"; }
};

// Creates `dir` (must not exist; parents are created) as an empty layer over `lower`. O(1) in
// the size of `lower`: nothing of it is read but its .git/HEAD.
Result<Layer> create_layer(const std::string& dir, const std::string& lower);

// Opens an existing layer (reads base.json). Errc::not_found when `dir` is no layer.
Result<Layer> open_layer(const std::string& dir);

// Writes base.json atomically.
Result<void> save_base(const Layer& layer);

// The mount lock: held (flock LOCK_EX) by whoever has the layer mounted, for as long as the
// overlay exists. Operations that rewrite the upper (rollback) need it free.
struct LayerLock {
  UniqueFd fd;
};
// Takes the lock without waiting; Errc::busy when someone holds it.
Result<LayerLock> lock_layer(const Layer& layer);
// Whether the layer is mounted right now (someone holds the lock).
bool layer_in_use(const Layer& layer);

// Removes a layer directory entirely (also overlayfs' mode-000 work dirs).
Result<void> remove_layer(const std::string& dir);

// A checkpoint or layer name: [A-Za-z0-9_.-]{1,64}, not starting with '.'.
Result<void> validate_tag(const std::string& tag, const char* what);

}  // namespace corral::workspace
