// Checkpoint, rollback, list, fork: copies of the upper directory.
#include "workspace/checkpoint.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/atomic_file.hpp"
#include "enforce/record.hpp"
#include "linux/file_clone.hpp"
#include "workspace/diff.hpp"
#include "workspace/tree.hpp"

namespace corral::workspace {
namespace {

Error io_error(const std::string& what, const std::string& path, int err) {
  Error e = make_error(Errc::io_error, what + ": " + std::strerror(err));
  e.file = path;
  return e;
}

bool exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

Result<CheckpointInfo> read_meta(const std::string& dir, const std::string& tag) {
  std::ifstream in(dir + "/meta.json");
  if (!in) return make_error(Errc::not_found, "checkpoint \"" + tag + "\" is incomplete (no meta.json)");
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str(), nullptr, false);
  CheckpointInfo info;
  info.tag = tag;
  if (j.is_object()) {
    info.created = j.value("created", "");
    info.changes = j.value("changes", std::size_t{0});
    info.live = j.value("live", false);
  }
  return info;
}

}  // namespace

Result<CheckpointInfo> create_checkpoint(const Layer& layer, const std::string& tag) {
  if (auto r = validate_tag(tag, "checkpoint tag"); !r) return std::move(r).error();
  const std::string dir = layer.checkpoints() + "/" + tag;
  if (exists(dir))
    return make_error(Errc::invalid_input, "checkpoint \"" + tag + "\" already exists; choose "
                      "another tag (corral checkpoints lists them)");
  CheckpointInfo info;
  info.tag = tag;
  info.created = now_rfc3339();
  info.live = layer_in_use(layer);
  // Built under a temporary name and renamed: a checkpoint either exists whole or not at all.
  const std::string tmp = layer.checkpoints() + "/.tmp-" + tag;
  if (auto r = remove_tree(tmp); !r) return std::move(r).error();
  if (mkdir(layer.checkpoints().c_str(), 0700) != 0 && errno != EEXIST)
    return io_error("cannot create", layer.checkpoints(), errno);
  if (mkdir(tmp.c_str(), 0700) != 0) return io_error("cannot create", tmp, errno);
  if (auto r = copy_tree(layer.upper(), tmp + "/upper"); !r) {
    (void)remove_tree(tmp);
    return std::move(r).error();
  }
  auto changes = diff_trees(tmp + "/upper", layer.base.lower);
  info.changes = changes ? changes->size() : 0;
  nlohmann::ordered_json j{{"tag", tag}, {"created", info.created}, {"changes", info.changes},
                           {"live", info.live}};
  if (auto r = write_file_atomic(tmp + "/meta.json", j.dump(2) + "\n"); !r) return std::move(r).error();
  if (rename(tmp.c_str(), dir.c_str()) != 0) return io_error("cannot rename into place", dir, errno);
  return info;
}

Result<void> rollback_to_checkpoint(const Layer& layer, const std::string& tag) {
  if (auto r = validate_tag(tag, "checkpoint tag"); !r) return std::move(r).error();
  const std::string dir = layer.checkpoints() + "/" + tag;
  if (!exists(dir + "/upper"))
    return make_error(Errc::not_found, "no checkpoint \"" + tag + "\" in " + layer.dir +
                      " (corral checkpoints lists them)");
  auto lock = lock_layer(layer);
  if (!lock) {
    Error e = std::move(lock).error();
    if (e.code == Errc::busy)
      e.message = "cannot roll back while the workspace is mounted by a running sandbox: "
                  "overlayfs does not allow changing its upper layer under a live mount; stop "
                  "the sandbox, roll back, and start it again";
    return e;
  }
  const std::string fresh = layer.dir + "/upper.rollback";
  if (auto r = remove_tree(fresh); !r) return r;
  if (auto r = copy_tree(dir + "/upper", fresh); !r) {
    (void)remove_tree(fresh);
    return r;
  }
  // One atomic swap: the upper is the old state or the checkpoint's, never a mix.
  if (int e = fsx::exchange(fresh.c_str(), layer.upper().c_str())) {
    (void)remove_tree(fresh);
    return io_error("cannot swap in the checkpoint", layer.upper(), e);
  }
  // overlayfs' work dir may hold leftovers of the old upper; it must be empty for a remount.
  if (auto r = remove_tree(layer.work()); !r) return r;
  if (mkdir(layer.work().c_str(), 0755) != 0) return io_error("cannot create", layer.work(), errno);
  return remove_tree(fresh);
}

Result<std::vector<CheckpointInfo>> list_checkpoints(const Layer& layer) {
  std::vector<CheckpointInfo> out;
  DIR* d = opendir(layer.checkpoints().c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    auto info = read_meta(layer.checkpoints() + "/" + e->d_name, e->d_name);
    if (info) out.push_back(*info);
  }
  closedir(d);
  std::sort(out.begin(), out.end(), [](const CheckpointInfo& a, const CheckpointInfo& b) {
    return a.created != b.created ? a.created < b.created : a.tag < b.tag;
  });
  return out;
}

Result<Layer> fork_layer(const Layer& layer, const std::string& new_dir) {
  if (exists(new_dir))
    return make_error(Errc::invalid_input, "\"" + new_dir + "\" already exists; a fork needs a new directory");
  auto fresh = create_layer(new_dir, layer.base.lower);
  if (!fresh) return std::move(fresh).error();
  Layer out = std::move(*fresh);
  // The fork sees what the source saw: same start (for apply's host-change check), same HEAD.
  out.base.created = layer.base.created;
  out.base.created_ns = layer.base.created_ns;
  out.base.git_head = layer.base.git_head;
  out.base.forked_from = layer.dir;
  if (auto r = save_base(out); !r) return std::move(r).error();
  if (auto r = remove_tree(out.upper()); !r) return std::move(r).error();
  if (auto r = copy_tree(layer.upper(), out.upper()); !r) {
    (void)remove_tree(new_dir);
    return std::move(r).error();
  }
  return out;
}

}  // namespace corral::workspace
