// The state directory: root selection, atomic state.json, the lock, liveness of the supervisor.
#include "sandbox/store.hpp"

#include "common/state_root.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "common/atomic_file.hpp"
#include "linux/proc_identity.hpp"

namespace corral::sandbox {

Result<std::string> state_root() { return corral_state_root(); }

Paths paths_for(const std::string& root, const std::string& name) {
  Paths p;
  p.dir = root + "/sandboxes/" + name;
  p.state = p.dir + "/state.json";
  p.lock = p.dir + "/lock";
  p.socket = p.dir + "/supervisor.sock";
  p.home = p.dir + "/home";
  p.logs = p.dir + "/logs";
  return p;
}

Result<StateLock> StateLock::acquire(const Paths& paths) {
  UniqueFd fd(open(paths.lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) {
    if (errno == ENOENT)
      return make_error(Errc::not_found, "no such sandbox");
    Error e = make_error(Errc::io_error, std::string("cannot open the lock: ") + std::strerror(errno));
    e.file = paths.lock;
    return e;
  }
  while (flock(fd.get(), LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    Error e = make_error(Errc::io_error, std::string("cannot lock: ") + std::strerror(errno));
    e.file = paths.lock;
    return e;
  }
  return StateLock(std::move(fd));
}

Result<State> load_state(const Paths& paths) {
  std::ifstream in(paths.state);
  if (!in) {
    std::string name = paths.dir.substr(paths.dir.rfind('/') + 1);
    return make_error(Errc::not_found,
                      fmt::format("no sandbox named {}; create it with `corral create {} "
                                  "--workspace DIR`", name, name));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded()) {
    Error e = make_error(Errc::io_error, "the sandbox's state is not valid JSON");
    e.file = paths.state;
    return e;
  }
  auto st = state_from_json(j);
  if (!st) {
    Error e = std::move(st).error();
    e.file = paths.state;
    return e;
  }
  return st;
}

Result<void> save_state(const Paths& paths, const State& state) {
  return write_file_atomic(paths.state, state_to_json(state).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", 0600);
}

bool supervisor_alive(const State& s) {
  return s.supervisor.pid > 0 && process_start_time(s.supervisor.pid) == s.supervisor.start_time;
}

Status live_status(const State& s) {
  if (s.status == Status::running && !supervisor_alive(s)) return Status::failed;
  if (s.status == Status::creating && process_start_time(s.creator.pid) != s.creator.start_time)
    return Status::failed;
  return s.status;
}

std::vector<std::string> list_names(const std::string& root) {
  std::vector<std::string> names;
  DIR* d = opendir((root + "/sandboxes").c_str());
  if (!d) return names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    if (validate_name(n)) names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace corral::sandbox
