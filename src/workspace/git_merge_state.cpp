// The merge lock (flock) and the merge state file (atomic JSON) in the repository's git dir.
#include "workspace/git_merge_state.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/atomic_file.hpp"

namespace corral::git::detail {

namespace {

std::string state_path(git_repository* repo) {
  return std::string(git_repository_path(repo)) + "corral-merge.json";
}

}  // namespace

Result<MergeLock> MergeLock::acquire(git_repository* repo) {
  std::string path = std::string(git_repository_commondir(repo)) + "corral-merge.lock";
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    Error e = make_error(Errc::io_error,
                         std::string("cannot open the merge lock: ") + std::strerror(errno));
    e.file = path;
    return e;
  }
  while (::flock(fd.get(), LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    Error e = make_error(Errc::io_error,
                         std::string("cannot take the merge lock: ") + std::strerror(errno));
    e.file = path;
    return e;
  }
  return MergeLock(std::move(fd));
}

Result<std::optional<MergeState>> read_merge_state(git_repository* repo) {
  std::string path = state_path(repo);
  if (::access(path.c_str(), F_OK) != 0 && errno == ENOENT) return std::optional<MergeState>();
  std::ifstream in(path);
  if (!in) {
    Error e = make_error(Errc::io_error, std::string("cannot read: ") + std::strerror(errno));
    e.file = path;
    return e;
  }
  std::stringstream text;
  text << in.rdbuf();
  auto j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    Error e = make_error(Errc::io_error,
                         "corral's merge state is corrupt; remove it to forget that merge");
    e.file = path;
    return e;
  }
  auto field = [&](const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  MergeState s;
  s.branch = field("branch");
  s.into = field("into");
  s.original_branch = field("original_branch");
  s.original_head = field("original_head");
  s.into_before = field("into_before");
  s.stash_id = field("stash_id");
  return std::optional<MergeState>(std::move(s));
}

Result<void> write_merge_state(git_repository* repo, const MergeState& s) {
  nlohmann::ordered_json j;
  j["branch"] = s.branch;
  j["into"] = s.into;
  j["original_branch"] = s.original_branch;
  j["original_head"] = s.original_head;
  j["into_before"] = s.into_before;
  j["stash_id"] = s.stash_id;
  return write_file_atomic(state_path(repo), j.dump(2) + "\n");
}

Result<void> remove_merge_state(git_repository* repo) {
  std::string path = state_path(repo);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    Error e = make_error(Errc::io_error, std::string("cannot remove: ") + std::strerror(errno));
    e.file = path;
    return e;
  }
  return {};
}

}  // namespace corral::git::detail
