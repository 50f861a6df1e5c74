// Unified diffs through diff(1), git-style headers for modes, links and binaries.
#include "workspace/patch.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

#include "linux/fd.hpp"

extern char** environ;

namespace corral::workspace {
namespace {

bool looks_binary(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!fd.valid()) return false;
  char buf[8000];
  ssize_t n = read(fd.get(), buf, sizeof buf);
  return n > 0 && std::memchr(buf, '\0', static_cast<size_t>(n)) != nullptr;
}

Result<std::string> run_diff(const std::string& rel, const std::string& old_path,
                             const std::string& new_path) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return make_error(Errc::io_error, std::string("pipe: ") + std::strerror(errno));
  UniqueFd rd(p[0]), wr(p[1]);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, wr.get(), 1);
  std::string la = "a/" + rel, lb = "b/" + rel;
  if (old_path == "/dev/null") la = "/dev/null";
  if (new_path == "/dev/null") lb = "/dev/null";
  std::vector<std::string> args{"diff", "-u", "--label", la, "--label", lb, old_path, new_path};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  int err = posix_spawnp(&pid, "diff", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err != 0)
    return make_error(Errc::unsupported, std::string("cannot run diff(1) for --patch: ") + std::strerror(err) +
                      "; install diffutils");
  wr.reset();
  std::string out;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = read(rd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
    return make_error(Errc::io_error, "diff(1) failed on " + rel);
  return out;
}

}  // namespace

Result<std::string> unified_patch(const Layer& layer, const std::vector<Change>& changes) {
  std::string out;
  for (const auto& c : changes) {
    const std::string lower = layer.base.lower + "/" + c.path, upper = layer.upper() + "/" + c.path;
    if (c.type == EntryType::dir) continue;
    // git's notation: the file type bits with the permissions.
    const unsigned type_bits = c.type == EntryType::symlink ? 0120000 : 0100000;
    out += fmt::format("diff --corral a/{0} b/{0}\n", c.path);
    if (c.kind == ChangeKind::added) out += fmt::format("new file mode {:06o}\n", type_bits | c.mode);
    if (c.kind == ChangeKind::deleted) out += fmt::format("deleted file mode {:06o}\n", type_bits | c.mode);
    if (c.mode_from) out += fmt::format("old mode {:06o}\nnew mode {:06o}\n", type_bits | *c.mode_from, type_bits | c.mode);
    if (c.type == EntryType::symlink) {
      if (c.kind != ChangeKind::added) out += fmt::format("-> {}\n", c.kind == ChangeKind::deleted ? c.target : c.target_from);
      if (c.kind != ChangeKind::deleted) out += fmt::format("+> {}\n", c.target);
      continue;
    }
    if (c.type != EntryType::file || (c.kind == ChangeKind::modified && !c.content_changed)) continue;
    const std::string old_path = c.kind == ChangeKind::added ? "/dev/null" : lower;
    const std::string new_path = c.kind == ChangeKind::deleted ? "/dev/null" : upper;
    if ((old_path != "/dev/null" && looks_binary(old_path)) || (new_path != "/dev/null" && looks_binary(new_path))) {
      out += fmt::format("Binary files {} and {} differ\n", c.kind == ChangeKind::added ? "/dev/null" : "a/" + c.path,
                         c.kind == ChangeKind::deleted ? "/dev/null" : "b/" + c.path);
      continue;
    }
    auto d = run_diff(c.path, old_path, new_path);
    if (!d) return std::move(d).error();
    out += *d;
  }
  return out;
}

}  // namespace corral::workspace
