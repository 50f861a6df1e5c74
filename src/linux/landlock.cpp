// Landlock ruleset construction and the raw landlock_* syscalls (glibc has no wrappers).
#include "linux/landlock.hpp"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace corral::landlock {
namespace {

// The ruleset attribute as of ABI 6; older kernels accept the larger struct when the fields
// they do not know are zero.
struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};

bool is_dir(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) != 0 || S_ISDIR(st.st_mode);
}

}  // namespace

std::uint64_t fs_rights_for_abi(int abi) {
  if (abi <= 0) return 0;
  std::uint64_t r = (1ULL << 13) - 1;  // ABI 1: execute .. make_sym
  if (abi >= 2) r |= kRefer;
  if (abi >= 3) r |= kTruncate;
  if (abi >= 5) r |= kIoctlDev;
  return r;
}

std::uint64_t file_rights(std::uint64_t rights) {
  return rights & (kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev);
}

Ruleset build_ruleset(const EffectivePolicy& policy, int abi) {
  Ruleset rs;
  rs.abi = abi;
  if (abi <= 0) return rs;
  const std::uint64_t all = fs_rights_for_abi(abi);
  rs.handled_fs = all;
  if (abi >= 6) rs.scoped = kScopeAbstractUnix | kScopeSignal;
  // Denials after execve are logged to the audit subsystem too (the default is off).
  if (abi >= 7) rs.restrict_flags = kLogNewExecOn;

  const std::uint64_t read = (kExecute | kReadFile | kReadDir | kIoctlDev) & all;
  const std::uint64_t device = (kReadFile | kWriteFile | kIoctlDev | kTruncate) & all;
  auto add = [&](const std::string& path, std::uint64_t access, bool dir) {
    rs.rules.push_back({path, dir ? access : file_rights(access), dir});
  };
  add("/", read, true);
  add("/dev", device | (kReadDir & all), true);
  add("/dev/shm", all, true);
  add("/tmp", all, true);
  for (const auto& p : policy.filesystem.write_allow) add(p, all, is_dir(p));
  return rs;
}

int create_ruleset_fd(const Ruleset& rs, int* failed_rule, int* ruleset_fd) {
  *failed_rule = -1;
  *ruleset_fd = -1;
  if (rs.abi <= 0) return 0;
  RulesetAttr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.handled_access_fs = rs.handled_fs;
  attr.scoped = rs.scoped;
  int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (ruleset < 0) return errno;
  for (size_t i = 0; i < rs.rules.size(); ++i) {
    const Rule& rule = rs.rules[i];
    int fd = open(rule.path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) continue;  // not visible inside: nothing to grant
      *failed_rule = static_cast<int>(i);
      int e = errno;
      close(ruleset);
      return e;
    }
    landlock_path_beneath_attr pb;
    std::memset(&pb, 0, sizeof pb);
    pb.allowed_access = rule.access;
    pb.parent_fd = fd;
    // A path the caller named as a file may be a directory inside (or vice versa): the kernel
    // refuses directory rights on files, so retry with file rights only.
    long r = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    if (r != 0 && errno == EINVAL) {
      pb.allowed_access = file_rights(rule.access);
      r = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    }
    int e = errno;
    close(fd);
    if (r != 0) {
      *failed_rule = static_cast<int>(i);
      close(ruleset);
      return e;
    }
  }
  *ruleset_fd = ruleset;
  return 0;
}

int restrict_self(int ruleset_fd, std::uint32_t restrict_flags) {
  if (ruleset_fd < 0) return 0;
  return syscall(SYS_landlock_restrict_self, ruleset_fd, restrict_flags) == 0 ? 0 : errno;
}

int apply_ruleset(const Ruleset& rs, int* failed_rule) {
  int ruleset = -1;
  if (int e = create_ruleset_fd(rs, failed_rule, &ruleset)) return e;
  if (ruleset < 0) return 0;
  int e = restrict_self(ruleset, rs.restrict_flags);
  close(ruleset);
  return e;
}

}  // namespace corral::landlock
