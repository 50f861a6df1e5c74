// Layer directories: creation, base.json, the mount lock, removal.
#include "workspace/layer.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/atomic_file.hpp"
#include "enforce/record.hpp"
#include "workspace/lower_head.hpp"
#include "workspace/tree.hpp"

namespace corral::workspace {
namespace {

Error layer_error(Errc code, const std::string& dir, std::string message) {
  Error e = make_error(code, std::move(message));
  e.file = dir;
  return e;
}

int mkdirs(const std::string& path, mode_t mode) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i != path.size() && path[i] != '/') continue;
    std::string prefix = path.substr(0, i);
    if (mkdir(prefix.c_str(), mode) != 0 && errno != EEXIST) return errno;
  }
  return 0;
}

std::int64_t coarse_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The layer's start as the filesystem sees time: the ctime of a file made now. Kernels order
// ctimes (multigrain timestamps keep them monotonic across files), so every host change made
// before has ctime <= it. Then wait until the coarse clock, the least any later change can be
// stamped with, has passed it: every change from now on has ctime > it. Costs one or two clock
// ticks (1 to 8 ms).
Result<std::int64_t> stamp_start(const std::string& marker) {
  UniqueFd fd(open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  struct stat st;
  if (!fd.valid() || fstat(fd.get(), &st) != 0)
    return layer_error(Errc::io_error, marker, std::string("cannot create: ") + std::strerror(errno));
  const std::int64_t stamp = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  for (int i = 0; i < 400 && coarse_now_ns() <= stamp; ++i) {
    timespec nap{0, 250000};
    nanosleep(&nap, nullptr);
  }
  return stamp;
}

}  // namespace

Result<void> validate_tag(const std::string& tag, const char* what) {
  bool ok = !tag.empty() && tag.size() <= 64 && tag[0] != '.';
  for (char c : tag)
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '-' || c == '.');
  if (ok) return {};
  return make_error(Errc::invalid_input,
                    std::string(what) + " \"" + tag + "\" is not valid: use 1 to 64 letters, digits, "
                    "'_', '-' or '.', not starting with '.'");
}

Result<void> save_base(const Layer& layer) {
  nlohmann::ordered_json j;
  j["lower"] = layer.base.lower;
  j["created"] = layer.base.created;
  j["created_ns"] = layer.base.created_ns;
  j["git_head"] = layer.base.git_head ? nlohmann::ordered_json(*layer.base.git_head) : nullptr;
  j["forked_from"] = layer.base.forked_from ? nlohmann::ordered_json(*layer.base.forked_from) : nullptr;
  j["applied"] = layer.base.applied;
  return write_file_atomic(layer.dir + "/base.json", j.dump(2) + "\n");
}

Result<Layer> create_layer(const std::string& dir, const std::string& lower) {
  struct stat st;
  if (lower.empty() || lower[0] != '/' || stat(lower.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return layer_error(Errc::invalid_input, lower, "the lower of a layer must be an existing absolute directory");
  if (lstat(dir.c_str(), &st) == 0)
    return layer_error(Errc::invalid_input, dir, "already exists; a new layer needs a fresh directory");
  std::string parent = dir.substr(0, dir.rfind('/'));
  if (!parent.empty())
    if (int e = mkdirs(parent, 0700))
      return layer_error(Errc::io_error, parent, std::string("cannot create: ") + std::strerror(e));
  if (mkdir(dir.c_str(), 0700) != 0)
    return layer_error(Errc::io_error, dir, std::string("cannot create: ") + std::strerror(errno));
  Layer layer;
  layer.dir = dir;
  // Stamped before anything is read: a host change from now on has ctime > created_ns.
  auto stamp = stamp_start(dir + "/created");
  if (!stamp) return std::move(stamp).error();
  layer.base.created_ns = *stamp;
  layer.base.created = now_rfc3339();
  layer.base.lower = lower;
  layer.base.git_head = read_git_head(lower);
  // overlayfs shows the upper root's attributes for the workspace: give it the lower's.
  for (const std::string& sub : {layer.upper(), layer.work(), layer.checkpoints()})
    if (mkdir(sub.c_str(), 0755) != 0)
      return layer_error(Errc::io_error, sub, std::string("cannot create: ") + std::strerror(errno));
  if (stat(lower.c_str(), &st) == 0) {
    (void)chmod(layer.upper().c_str(), st.st_mode & 07777);
    if (geteuid() == 0) (void)chown(layer.upper().c_str(), st.st_uid, st.st_gid);
  }
  if (auto r = save_base(layer); !r) return std::move(r).error();
  return layer;
}

Result<Layer> open_layer(const std::string& dir) {
  std::ifstream in(dir + "/base.json");
  if (!in) return layer_error(Errc::not_found, dir, "is not a workspace layer (no base.json)");
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("lower") || !j["lower"].is_string())
    return layer_error(Errc::io_error, dir + "/base.json", "is damaged (not the JSON corral wrote)");
  Layer layer;
  layer.dir = dir;
  layer.base.lower = j["lower"].get<std::string>();
  layer.base.created = j.value("created", "");
  layer.base.created_ns = j.value("created_ns", std::int64_t{0});
  if (j.contains("git_head") && j["git_head"].is_string()) layer.base.git_head = j["git_head"].get<std::string>();
  if (j.contains("forked_from") && j["forked_from"].is_string())
    layer.base.forked_from = j["forked_from"].get<std::string>();
  if (j.contains("applied") && j["applied"].is_object())
    for (const auto& [path, ns] : j["applied"].items())
      if (ns.is_number_integer()) layer.base.applied[path] = ns.get<std::int64_t>();
  struct stat st;
  if (stat(layer.upper().c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return layer_error(Errc::io_error, dir, "is damaged: its upper/ directory is missing");
  return layer;
}

Result<LayerLock> lock_layer(const Layer& layer) {
  LayerLock lock;
  lock.fd.reset(open(layer.lock_path().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  // flock works on a read-only fd too (a layer seen through a read-only mount).
  if (!lock.fd.valid() && (errno == EROFS || errno == EACCES))
    lock.fd.reset(open(layer.lock_path().c_str(), O_RDONLY | O_CLOEXEC));
  if (!lock.fd.valid())
    return layer_error(Errc::io_error, layer.lock_path(), std::string("cannot open: ") + std::strerror(errno));
  if (flock(lock.fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK)
      return layer_error(Errc::busy, layer.dir,
                         "the workspace is mounted by a running sandbox; stop it first");
    return layer_error(Errc::io_error, layer.lock_path(), std::string("cannot lock: ") + std::strerror(errno));
  }
  return lock;
}

bool layer_in_use(const Layer& layer) {
  UniqueFd fd(open(layer.lock_path().c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return false;
  if (flock(fd.get(), LOCK_SH | LOCK_NB) != 0) return errno == EWOULDBLOCK;
  flock(fd.get(), LOCK_UN);
  return false;
}

Result<void> remove_layer(const std::string& dir) { return remove_tree(dir); }

}  // namespace corral::workspace
