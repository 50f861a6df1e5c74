// /proc readers for process identity and process trees, and pidfd_open.
#include "linux/proc_identity.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace corral {
namespace {

// Reads /proc/PID/stat; the fields after the command name (which may hold spaces and parens).
bool stat_fields_after_comm(pid_t pid, char* buf, size_t size, char** rest) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = read(fd, buf, size - 1);
  close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  char* close_paren = strrchr(buf, ')');
  if (!close_paren) return false;
  *rest = close_paren + 2;  // ") S ..." -> "S ..."
  return true;
}

}  // namespace

std::uint64_t process_start_time(pid_t pid) {
  if (pid <= 0) return 0;
  char buf[1024];
  char* rest;
  if (!stat_fields_after_comm(pid, buf, sizeof buf, &rest)) return 0;
  // rest starts at field 3 (state); start time is field 22. A zombie has ended: only its
  // parent's wait is missing (and a reparented one may wait for a slow reaper).
  if (rest[0] == 'Z' || rest[0] == 'X') return 0;
  char* save = nullptr;
  char* tok = strtok_r(rest, " ", &save);
  for (int field = 3; tok && field < 22; ++field) tok = strtok_r(nullptr, " ", &save);
  return tok ? strtoull(tok, nullptr, 10) : 0;
}

int open_pidfd(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

std::vector<pid_t> descendants_of(pid_t ancestor) {
  std::multimap<pid_t, pid_t> children;  // ppid -> pid
  DIR* d = opendir("/proc");
  if (!d) return {};
  while (dirent* e = readdir(d)) {
    char* end;
    long pid = strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0) continue;
    char buf[1024];
    char* rest;
    if (!stat_fields_after_comm(static_cast<pid_t>(pid), buf, sizeof buf, &rest)) continue;
    char state;
    int ppid;
    if (sscanf(rest, "%c %d", &state, &ppid) == 2 && state != 'Z')
      children.emplace(ppid, static_cast<pid_t>(pid));
  }
  closedir(d);
  std::vector<pid_t> out;
  std::vector<pid_t> todo{ancestor};
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    auto [lo, hi] = children.equal_range(p);
    for (auto it = lo; it != hi; ++it) {
      out.push_back(it->second);
      todo.push_back(it->second);
    }
  }
  return out;
}

std::uint64_t resident_bytes(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/statm", pid);
  FILE* f = fopen(path, "re");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  int n = fscanf(f, "%lu %lu", &size, &resident);
  fclose(f);
  if (n != 2) return 0;
  return static_cast<std::uint64_t>(resident) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace corral
