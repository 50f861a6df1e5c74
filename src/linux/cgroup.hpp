// Per-run cgroups: find our place in the cgroup hierarchies (v1, v2 or hybrid), create a leaf per
// run with memory/pids/cpu limits, move the run into it, read its usage, kill it, remove it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "linux/fd.hpp"

namespace corral {

struct CgroupLimits {
  std::optional<std::uint64_t> memory_bytes;  // hard limit, swap included (no swap beyond it)
  std::optional<std::uint64_t> pids;          // tasks (processes and threads) at once
  std::optional<double> cpus;                 // CPU bandwidth in CPUs, e.g. 1.5
};

// Where this process sits in the mounted cgroup hierarchies. Plain data: a caller may adjust it
// (e.g. point v2_root elsewhere) before handing it to RunCgroup::create.
struct CgroupLayout {
  // What enforces limits: v2 when the v2 hierarchy offers memory, pids and cpu to our cgroup;
  // else v1 when a v1 memory, pids or cpu hierarchy is mounted (hybrid machines land here, with
  // v2_root also set); else v2 when only a controller-less v2 hierarchy exists; else none.
  enum class Version { none, v1, v2 };
  Version version = Version::none;
  std::string v2_root;  // absolute dir of OUR cgroup in the v2 hierarchy; "" when none
  // Mount point of the v2 hierarchy. Root on a systemd host may prefer it as v2_root: runs then
  // sit beside system.slice (as Docker's do) instead of inside the caller's login session.
  std::string v2_mount;
  std::vector<std::string> v2_controllers;  // <v2_root>/cgroup.controllers
  // Controller -> absolute dir of our cgroup in the v1 hierarchy holding it. Only the
  // controllers corral uses: memory, pids, cpu (limits), cpuacct (usage), freezer (kill_all).
  // Co-mounted controllers ("cpu,cpuacct") map to the same dir.
  std::map<std::string, std::string> v1_dirs;
};

// Processes of a v2 cgroup that must hand controllers to children are moved into this child of
// it ("no internal processes"); detection treats a membership ending in it as its parent.
inline constexpr const char* kCgroupSelfLeaf = "corral-self";

// Pure apart from reading <v2_root>/cgroup.controllers and checking that dirs exist. fs_prefix is
// prepended to every path from mountinfo, so tests can point at a fake tree.
Result<CgroupLayout> detect_cgroups(const std::string& mountinfo_text,
                                    const std::string& proc_self_cgroup_text,
                                    const std::string& fs_prefix = "");
// Reads /proc/self/mountinfo and /proc/self/cgroup.
Result<CgroupLayout> detect_cgroups();

// The file operations cgroup code needs, so tests can run against a fake cgroupfs (a temp dir
// whose "kernel" creates control files on mkdir). Each returns 0 or an errno.
class CgroupFs {
 public:
  virtual ~CgroupFs() = default;
  virtual int make_dir(const std::string& path) = 0;
  virtual int remove_dir(const std::string& path) = 0;
  virtual int read_file(const std::string& path, std::string& out) = 0;
  // Writes `text` with a single write(2) to an existing file: cgroupfs parses each write as one
  // command, and a control file that is missing must stay an error, never be created.
  virtual int write_file(const std::string& path, const std::string& text) = 0;
  virtual bool exists(const std::string& path) = 0;
  virtual bool writable(const std::string& path) = 0;  // access(W_OK) for this user
  virtual int list_dirs(const std::string& path, std::vector<std::string>& names) = 0;
  virtual std::optional<std::chrono::system_clock::time_point> mtime(const std::string& path) = 0;
  virtual int open_dir(const std::string& path) = 0;  // an O_DIRECTORY|O_CLOEXEC fd, or -errno
};

// The real kernel interface; a fake derives from it and adds the kernel's side effects.
class PosixCgroupFs : public CgroupFs {
 public:
  int make_dir(const std::string& path) override;
  int remove_dir(const std::string& path) override;
  int read_file(const std::string& path, std::string& out) override;
  int write_file(const std::string& path, const std::string& text) override;
  bool exists(const std::string& path) override;
  bool writable(const std::string& path) override;
  int list_dirs(const std::string& path, std::vector<std::string>& names) override;
  std::optional<std::chrono::system_clock::time_point> mtime(const std::string& path) override;
  int open_dir(const std::string& path) override;
};
std::shared_ptr<CgroupFs> real_cgroup_fs();

struct CgroupStats {
  std::uint64_t peak_memory_bytes = 0;  // 0 when no memory controller serves this run
  bool oom_killed = false;              // the kernel OOM-killed a process of the run
  std::uint64_t oom_kill_count = 0;
  std::uint64_t cpu_usage_ns = 0;  // user + system CPU time of the run
  bool pids_limit_hit = false;     // a fork/clone failed because of pids.max
  std::uint64_t pids_max_events = 0;
};

// The cgroups of one run: <our cgroup>/<parent_name>/<run_id> in every hierarchy it uses. Not
// removed by the destructor beyond one best-effort rmdir (which fails while processes remain);
// call kill_all() and remove() explicitly, and reap_stale_cgroups() cleans what a crash left.
class RunCgroup {
 public:
  // Uses v2 for every controller the v2 hierarchy offers and v1 for the rest; the v2 leaf is also
  // made when no v2 controller is used (for cgroup.kill, cgroup.freeze and cpu.stat) if our v2
  // cgroup is writable. Hierarchies that only report usage are used when writable and skipped
  // otherwise. Errc::unsupported when a limit's controller is missing or not writable by us,
  // Errc::invalid_input for a bad name or limit, Errc::setup_failed when the kernel refuses.
  static Result<RunCgroup> create(const CgroupLayout& layout, const std::string& run_id,
                                  const CgroupLimits& limits,
                                  const std::string& parent_name = "corral");
  static Result<RunCgroup> create(std::shared_ptr<CgroupFs> fs, const CgroupLayout& layout,
                                  const std::string& run_id, const CgroupLimits& limits,
                                  const std::string& parent_name = "corral");

  RunCgroup(RunCgroup&&) noexcept = default;
  RunCgroup& operator=(RunCgroup&&) noexcept;
  RunCgroup(const RunCgroup&) = delete;
  RunCgroup& operator=(const RunCgroup&) = delete;
  ~RunCgroup();

  // Moves `pid` (and its threads) into the run's cgroup in every hierarchy. Do it before the
  // child enters a new cgroup namespace, so that namespace is rooted at the run's cgroup.
  Result<void> attach(pid_t pid);
  // An fd of the v2 leaf for clone3(CLONE_INTO_CGROUP) when that alone places a child in every
  // cgroup of the run (pure v2); -1 when attach() is needed (v1 or hybrid). Owned by this object.
  int clone_into_fd() const;
  Result<CgroupStats> stats();
  // SIGKILLs every process in the run's cgroups (cgroup.kill, or freeze + kill + thaw) and waits
  // until they are gone. Zombies do not count: the kernel drops them from cgroup.procs.
  Result<void> kill_all();
  // rmdir of every leaf, retrying briefly while exiting processes leave. The intermediate
  // <parent_name> dirs stay: concurrent runs share them.
  Result<void> remove();
  // Leaf dirs, v2 first. Empty when no hierarchy was usable (no limits asked, none writable).
  std::vector<std::string> paths() const;
  const std::string& id() const { return id_; }

 private:
  RunCgroup() = default;
  friend Result<std::vector<std::string>> reap_stale_cgroups(
      std::shared_ptr<CgroupFs>, const CgroupLayout&,
      const std::function<bool(const std::string&)>&, std::chrono::seconds, const std::string&);

  std::string dir_for(const std::string& controller) const;  // leaf serving it, "" if none
  std::vector<pid_t> procs();

  std::shared_ptr<CgroupFs> fs_;
  std::string id_;
  std::string v2_leaf_;                           // "" when the run has no v2 cgroup
  std::vector<std::string> v2_controllers_;       // of memory/pids/cpu, those served by v2
  std::map<std::string, std::string> v1_leaves_;  // controller -> leaf dir
  UniqueFd v2_fd_;
};

// Cleans <our cgroup>/<parent_name>/<id> dirs left by runs that are gone: skips ids for which
// is_live(id) is true and dirs younger than `grace` (a run creates its cgroup before it can be
// registered anywhere); removes the rest, killing their processes first. Returns removed dirs.
// For `corral gc`, and opportunistically at the start of a run.
Result<std::vector<std::string>> reap_stale_cgroups(
    const CgroupLayout& layout, const std::function<bool(const std::string& id)>& is_live,
    std::chrono::seconds grace = std::chrono::seconds(60),
    const std::string& parent_name = "corral");
Result<std::vector<std::string>> reap_stale_cgroups(
    std::shared_ptr<CgroupFs> fs, const CgroupLayout& layout,
    const std::function<bool(const std::string& id)>& is_live, std::chrono::seconds grace,
    const std::string& parent_name);

}  // namespace corral
