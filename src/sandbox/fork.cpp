// Forking a persistent sandbox: state, home volume and copy-on-write layer copied under NEW.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

#include "enforce/record.hpp"
#include "sandbox/api.hpp"
#include "sandbox/store.hpp"
#include "workspace/checkpoint.hpp"
#include "workspace/tree.hpp"

namespace corral::sandbox {
namespace {

// Fills NEW's directory (claimed and locked by the caller) from NAME's.
Result<State> fill_fork(const Paths& from, const Paths& to, const State& source) {
  if (auto r = workspace::copy_tree(from.home, to.home); !r) return std::move(r).error();
  chmod(to.home.c_str(), 0700);
  if (mkdir(to.logs.c_str(), 0700) != 0) {
    Error e = make_error(Errc::io_error, std::string("cannot create: ") + std::strerror(errno));
    e.file = to.logs;
    return e;
  }
  struct stat st;
  const std::string layer_dir = from.dir + "/workspace";
  if (stat(layer_dir.c_str(), &st) == 0) {
    auto layer = workspace::open_layer(layer_dir);
    if (!layer) return std::move(layer).error();
    auto forked = workspace::fork_layer(*layer, to.dir + "/workspace");
    if (!forked) return std::move(forked).error();
  }
  State s = source;
  s.name = to.dir.substr(to.dir.rfind('/') + 1);
  s.status = Status::stopped;
  s.supervisor = {};
  s.cgroup.clear();  // NAME's, not ours
  s.creator = {};
  s.error.clear();
  s.created_at = now_rfc3339();
  s.started_at.clear();
  s.stopped_at = s.created_at;
  if (auto r = save_state(to, s); !r) return std::move(r).error();
  return s;
}

}  // namespace

Result<State> fork_sandbox(const std::string& name, const std::string& new_name) {
  if (auto r = validate_name(name); !r) return std::move(r).error();
  if (auto r = validate_name(new_name); !r) return std::move(r).error();
  auto root = state_root();
  if (!root) return std::move(root).error();
  const Paths from = paths_for(*root, name), to = paths_for(*root, new_name);
  auto s = load_state(from);
  if (!s) return s;
  // NAME's lock keeps it from being updated or removed while it is copied.
  auto source_lock = StateLock::acquire(from);
  if (!source_lock) return std::move(source_lock).error();
  s = load_state(from);
  if (!s) return s;
  if (live_status(*s) == Status::creating)
    return make_error(Errc::not_running, fmt::format("sandbox {} is still being created; fork it "
                                                     "once `corral create` has finished", name));
  if (mkdir(to.dir.c_str(), 0700) != 0) {
    if (errno == EEXIST)
      return make_error(Errc::already_exists,
                        fmt::format("sandbox {} already exists; to recreate it, remove it first "
                                    "(`corral rm -f {}`, which deletes its home volume) or keep "
                                    "the volume with `corral update {}`",
                                    new_name, new_name, new_name));
    Error e = make_error(Errc::io_error, std::string("cannot create the sandbox's directory: ") +
                                             std::strerror(errno));
    e.file = to.dir;
    return e;
  }
  auto lock = StateLock::acquire(to);
  if (!lock) {
    (void)workspace::remove_tree(to.dir);
    return std::move(lock).error();
  }
  auto made = fill_fork(from, to, *s);
  if (!made) (void)workspace::remove_tree(to.dir);
  return made;
}

}  // namespace corral::sandbox
