// Tests of the cgroup module: detection from fixed mountinfo texts (hybrid, pure v2, v1, none),
// the full run cycle on a fake cgroupfs whose "kernel" behaves like the real one (control files on
// mkdir, subtree_control, "no internal processes", cgroup.kill), and on this machine's real
// hierarchy: as root a child really gets OOM-killed and forks really hit pids.max; as any other
// user, create really refuses with an actionable message.
#include "linux/cgroup.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "linux/cgroup_detail.hpp"

namespace corral {
namespace {

namespace fs = std::filesystem;

// --- helpers ---------------------------------------------------------------------------------

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void put(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

std::vector<std::string> words(const std::string& text) { return cgroup::split_words(text); }

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "corral-cgroup-test-XXXXXX").string();
    char* p = ::mkdtemp(tmpl.data());
    EXPECT_NE(p, nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A forked child that sleeps until killed; reaped (and killed, if still alive) on destruction.
class Sleeper {
 public:
  Sleeper() {
    pid_ = ::fork();
    if (pid_ == 0) {
      for (;;) ::pause();
    }
  }
  ~Sleeper() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      wait_status();
    }
  }
  pid_t pid() const { return pid_; }
  // The child's wait status (blocks until it ended).
  int wait_status() {
    if (reaped_) return status_;
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  bool reaped_ = false;
};

bool killed_by_sigkill(int status) { return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL; }

// A process that exited (or is a zombie) is no longer listed by the kernel in cgroup.procs.
bool alive(pid_t pid) {
  std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return false;
  return stat[paren + 2] != 'Z' && stat[paren + 2] != 'X';
}

// --- a fake cgroupfs -------------------------------------------------------------------------

// A temp dir standing in for cgroupfs. mkdir creates the control files the kernel would; writes
// to cgroup.subtree_control, cgroup.procs, cgroup.kill and cgroup.freeze have the kernel's effects
// and refusals (ENOENT for an unavailable controller, EBUSY for "no internal processes"); rmdir
// refuses while processes or children remain; dead pids vanish from cgroup.procs.
class FakeCgroupFs : public PosixCgroupFs {
 public:
  struct Options {
    bool cgroup_kill = true;  // Linux >= 5.14
    bool memory_peak = true;  // Linux >= 5.19
    bool swap = true;         // swap accounting: memory.swap.max / memory.memsw.*
  };
  FakeCgroupFs() = default;
  explicit FakeCgroupFs(Options o) : opt_(o) {}

  void add_v2_root(const std::string& dir, const std::string& controllers) {
    fs::create_directories(dir);
    roots_[dir] = {2, {}};
    put(dir + "/cgroup.controllers", controllers + "\n");
    put(dir + "/cgroup.subtree_control", "");
    put(dir + "/cgroup.procs", "");
    put(dir + "/cpu.stat", "usage_usec 0\nuser_usec 0\nsystem_usec 0\n");
  }
  // Makes an existing v2 tree (set up by another fake) known to this one.
  void adopt_v2_root(const std::string& dir) { roots_[dir] = {2, {}}; }
  void add_v1_root(const std::string& dir, const std::vector<std::string>& controllers) {
    fs::create_directories(dir);
    roots_[dir] = {1, controllers};
    put(dir + "/cgroup.procs", "");
    put(dir + "/tasks", "");
  }
  // mkdir -p through the fake, enabling `enable` in each created level (as systemd does above a
  // delegated scope).
  void make_path(const std::string& root, const std::string& rel, const std::string& enable) {
    std::string dir = root;
    std::stringstream ss(rel);
    std::string part;
    while (std::getline(ss, part, '/')) {
      if (part.empty()) continue;
      if (roots_.at(root).version == 2) enable_all(dir, enable);
      dir += "/" + part;
      if (!fs::exists(dir)) {
        EXPECT_EQ(make_dir(dir), 0) << dir;
      }
    }
  }
  void enable_all(const std::string& dir, const std::string& controllers) {
    for (const std::string& c : words(controllers))
      if (!has(words(slurp(dir + "/cgroup.subtree_control")), c)) {
        EXPECT_EQ(write_file(dir + "/cgroup.subtree_control", "+" + c), 0) << dir << " " << c;
      }
  }

  std::set<std::string> not_writable;                       // paths writable() denies
  std::vector<std::pair<std::string, std::string>> writes;  // every write, in order

  bool writable(const std::string& path) override {
    return !not_writable.count(path) && PosixCgroupFs::writable(path);
  }

  int make_dir(const std::string& path) override {
    if (int err = PosixCgroupFs::make_dir(path); err != 0) return err;
    const Root* r = root_of(path);
    if (r == nullptr) return 0;
    if (r->version == 2) {
      std::string parent = fs::path(path).parent_path().string();
      std::vector<std::string> ctrls = words(slurp(parent + "/cgroup.subtree_control"));
      put(path + "/cgroup.procs", "");
      put(path + "/cgroup.controllers", join(ctrls));
      put(path + "/cgroup.subtree_control", "");
      put(path + "/cgroup.events", "populated 0\nfrozen 0\n");
      put(path + "/cgroup.freeze", "0\n");
      if (opt_.cgroup_kill) put(path + "/cgroup.kill", "");
      put(path + "/cpu.stat", "usage_usec 0\nuser_usec 0\nsystem_usec 0\n");
      for (const std::string& c : ctrls) add_v2_files(path, c);
    } else {
      put(path + "/cgroup.procs", "");
      put(path + "/tasks", "");
      for (const std::string& c : r->controllers) add_v1_files(path, c);
    }
    return 0;
  }

  int remove_dir(const std::string& path) override {
    if (root_of(path) == nullptr) return PosixCgroupFs::remove_dir(path);
    if (!fs::is_directory(path)) return ENOENT;
    if (!live_pids(path).empty()) return EBUSY;
    for (const auto& e : fs::directory_iterator(path))
      if (e.is_directory()) return EBUSY;
    for (const auto& e : fs::directory_iterator(path)) fs::remove(e.path());
    return PosixCgroupFs::remove_dir(path);
  }

  int read_file(const std::string& path, std::string& out) override {
    if (fs::path(path).filename() == "cgroup.procs" && fs::exists(path)) {
      std::string dir = fs::path(path).parent_path().string();
      out.clear();
      for (pid_t p : live_pids(dir)) out += std::to_string(p) + "\n";
      return 0;
    }
    return PosixCgroupFs::read_file(path, out);
  }

  int write_file(const std::string& path, const std::string& text) override {
    if (!fs::exists(path)) return ENOENT;  // the kernel never creates control files on write
    writes.emplace_back(path, text);
    const Root* r = root_of(path);
    std::string dir = fs::path(path).parent_path().string();
    std::string name = fs::path(path).filename().string();
    if (r != nullptr && r->version == 2 && name == "cgroup.subtree_control")
      return write_subtree_control(dir, text);
    if (r != nullptr && name == "cgroup.procs") return move_pid(*r, dir, text);
    if (r != nullptr && r->version == 2 && name == "cgroup.kill") {
      for (pid_t p : live_pids_recursive(dir)) ::kill(p, SIGKILL);
      return 0;
    }
    if (r != nullptr && r->version == 2 && name == "cgroup.freeze") {
      put(path, text);
      put(dir + "/cgroup.events", "populated 1\nfrozen " + words(text).at(0) + "\n");
      return 0;
    }
    put(path, text);
    return 0;
  }

 private:
  struct Root {
    int version = 2;
    std::vector<std::string> controllers;  // v1
  };

  static std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& w : v) s += (s.empty() ? "" : " ") + w;
    return s + "\n";
  }

  const Root* root_of(const std::string& path) const {
    const Root* best = nullptr;
    size_t best_len = 0;
    for (const auto& [dir, root] : roots_)
      if ((path == dir || path.rfind(dir + "/", 0) == 0) && dir.size() > best_len) {
        best = &root;
        best_len = dir.size();
      }
    return best;
  }
  bool is_root(const std::string& dir) const { return roots_.count(dir) > 0; }

  void add_v2_files(const std::string& dir, const std::string& c) {
    if (c == "memory") {
      put(dir + "/memory.max", "max\n");
      put(dir + "/memory.current", "0\n");
      if (opt_.memory_peak) put(dir + "/memory.peak", "0\n");
      put(dir + "/memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
      if (opt_.swap) put(dir + "/memory.swap.max", "max\n");
    } else if (c == "pids") {
      put(dir + "/pids.max", "max\n");
      put(dir + "/pids.current", "0\n");
      put(dir + "/pids.events", "max 0\n");
    } else if (c == "cpu") {
      put(dir + "/cpu.max", "max 100000\n");
      put(dir + "/cpu.weight", "100\n");
    }
  }
  void add_v1_files(const std::string& dir, const std::string& c) {
    if (c == "memory") {
      put(dir + "/memory.limit_in_bytes", "9223372036854771712\n");
      if (opt_.swap) put(dir + "/memory.memsw.limit_in_bytes", "9223372036854771712\n");
      put(dir + "/memory.max_usage_in_bytes", "0\n");
      put(dir + "/memory.usage_in_bytes", "0\n");
      put(dir + "/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
    } else if (c == "pids") {
      put(dir + "/pids.max", "max\n");
      put(dir + "/pids.events", "max 0\n");
    } else if (c == "cpu") {
      put(dir + "/cpu.cfs_period_us", "100000\n");
      put(dir + "/cpu.cfs_quota_us", "-1\n");
    } else if (c == "cpuacct") {
      put(dir + "/cpuacct.usage", "0\n");
    } else if (c == "freezer") {
      put(dir + "/freezer.state", "THAWED\n");
    }
  }

  int write_subtree_control(const std::string& dir, const std::string& text) {
    std::vector<std::string> enabled = words(slurp(dir + "/cgroup.subtree_control"));
    std::vector<std::string> available = words(slurp(dir + "/cgroup.controllers"));
    for (const std::string& w : words(text)) {
      std::string c = w.substr(1);
      if (w[0] == '+') {
        if (!has(available, c)) return ENOENT;
        if (!is_root(dir) && !live_pids(dir).empty()) return EBUSY;  // no internal processes
        if (has(enabled, c)) continue;
        enabled.push_back(c);
        for (const auto& e : fs::directory_iterator(dir)) {
          if (!e.is_directory()) continue;
          std::string child = e.path().string();
          std::vector<std::string> cc = words(slurp(child + "/cgroup.controllers"));
          cc.push_back(c);
          put(child + "/cgroup.controllers", join(cc));
          add_v2_files(child, c);
        }
      } else if (w[0] == '-') {
        enabled.erase(std::remove(enabled.begin(), enabled.end(), c), enabled.end());
      } else {
        return EINVAL;
      }
    }
    put(dir + "/cgroup.subtree_control", enabled.empty() ? "" : join(enabled));
    return 0;
  }

  std::vector<pid_t> live_pids(const std::string& dir) const {
    std::vector<pid_t> out;
    for (pid_t p : cgroup::parse_pids(slurp(dir + "/cgroup.procs")))
      if (alive(p)) out.push_back(p);
    return out;
  }
  std::vector<pid_t> live_pids_recursive(const std::string& dir) const {
    std::vector<pid_t> out = live_pids(dir);
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_directory())
        for (pid_t p : live_pids(e.path().string())) out.push_back(p);
    return out;
  }

  int move_pid(const Root& r, const std::string& dir, const std::string& text) {
    auto pid = cgroup::parse_u64(text);
    if (!pid) return EINVAL;
    if (::kill(static_cast<pid_t>(*pid), 0) != 0 && errno == ESRCH) return ESRCH;
    // v2: a cgroup handing domain controllers to children may not hold processes.
    if (r.version == 2 && !is_root(dir) && !words(slurp(dir + "/cgroup.subtree_control")).empty())
      return EBUSY;
    std::string root;
    for (const auto& [d, rr] : roots_)
      if (&rr == &r) root = d;
    auto drop = [&](const std::string& d) {
      std::vector<pid_t> kept;
      for (pid_t p : cgroup::parse_pids(slurp(d + "/cgroup.procs")))
        if (p != static_cast<pid_t>(*pid)) kept.push_back(p);
      std::string s;
      for (pid_t p : kept) s += std::to_string(p) + "\n";
      put(d + "/cgroup.procs", s);
    };
    drop(root);
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.is_directory()) drop(e.path().string());
    std::ofstream(dir + "/cgroup.procs", std::ios::app) << *pid << "\n";
    return 0;
  }

  Options opt_;
  std::map<std::string, Root> roots_;
};

// --- detection -------------------------------------------------------------------------------

// This machine: cgroup v1 controllers (cpu and cpuacct mounted apart) plus a controller-less
// cgroup2 at /sys/fs/cgroup/unified; our memory cgroup is /process_api/<hash>.
const char* kHybridMountinfo =
    "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices\n"
    "37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer\n"
    "38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio\n"
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
const char* kHybridSelfCgroup =
    "9:name=systemd:/\n8:pids:/\n7:blkio:/\n6:freezer:/\n5:devices:/\n"
    "4:memory:/process_api/bd5ad09e0d004678d194dfb0332379a5\n3:cpuset:/\n2:cpuacct:/\n1:cpu:/\n"
    "0::/\n";

const char* kV2Mountinfo =
    "25 1 0:23 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
    "35 25 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 "
    "rw,nsdelegate,memory_recursiveprot\n";
const char* kScope = "/user.slice/user-1000.slice/user@1000.service/app.slice/run-u12.scope";

// An older v1-only distro: cpu and cpuacct co-mounted, the usual systemd names.
const char* kV1Mountinfo =
    "30 25 0:26 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755\n"
    "31 30 0:27 / /sys/fs/cgroup/systemd rw,nosuid shared:10 - cgroup cgroup "
    "rw,xattr,name=systemd\n"
    "34 30 0:30 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:15 - cgroup cgroup rw,cpu,cpuacct\n"
    "35 30 0:31 / /sys/fs/cgroup/memory rw,nosuid shared:16 - cgroup cgroup rw,memory\n"
    "36 30 0:32 / /sys/fs/cgroup/pids rw,nosuid shared:17 - cgroup cgroup rw,pids\n"
    "37 30 0:33 / /sys/fs/cgroup/freezer rw,nosuid shared:18 - cgroup cgroup rw,freezer\n";
const char* kV1SelfCgroup =
    "11:freezer:/\n7:pids:/user.slice/user-1000.slice/session-2.scope\n"
    "6:memory:/user.slice/user-1000.slice/session-2.scope\n4:cpu,cpuacct:/user.slice\n"
    "1:name=systemd:/user.slice/user-1000.slice/session-2.scope\n";

TEST(CgroupDetect, HybridLikeThisMachine) {
  TempDir t;
  const std::string p = t.path();
  for (const char* d :
       {"cpu", "cpuacct", "cpuset", "devices", "freezer", "blkio", "pids", "systemd", "unified",
        "memory/process_api/bd5ad09e0d004678d194dfb0332379a5"})
    fs::create_directories(p + "/sys/fs/cgroup/" + d);
  put(p + "/sys/fs/cgroup/unified/cgroup.controllers", "hugetlb\n");

  auto layout = detect_cgroups(kHybridMountinfo, kHybridSelfCgroup, p);
  ASSERT_TRUE(layout.ok()) << layout.error().describe();
  EXPECT_EQ(layout->version, CgroupLayout::Version::v1);
  EXPECT_EQ(layout->v2_root, p + "/sys/fs/cgroup/unified");
  EXPECT_EQ(layout->v2_mount, p + "/sys/fs/cgroup/unified");
  EXPECT_EQ(layout->v2_controllers, std::vector<std::string>{"hugetlb"});
  std::map<std::string, std::string> want = {
      {"cpu", p + "/sys/fs/cgroup/cpu"},
      {"cpuacct", p + "/sys/fs/cgroup/cpuacct"},
      {"freezer", p + "/sys/fs/cgroup/freezer"},
      {"memory", p + "/sys/fs/cgroup/memory/process_api/bd5ad09e0d004678d194dfb0332379a5"},
      {"pids", p + "/sys/fs/cgroup/pids"}};
  EXPECT_EQ(layout->v1_dirs, want);  // no cpuset, devices, blkio: corral does not use them
}

TEST(CgroupDetect, PureV2DelegatedScope) {
  TempDir t;
  const std::string root = t.path() + "/sys/fs/cgroup";
  fs::create_directories(root + kScope);
  put(root + kScope + "/cgroup.controllers", "cpuset cpu io memory pids\n");

  auto layout = detect_cgroups(kV2Mountinfo, std::string("0::") + kScope + "\n", t.path());
  ASSERT_TRUE(layout.ok()) << layout.error().describe();
  EXPECT_EQ(layout->version, CgroupLayout::Version::v2);
  EXPECT_EQ(layout->v2_root, root + kScope);
  EXPECT_EQ(layout->v2_mount, root);
  EXPECT_EQ(layout->v2_controllers,
            (std::vector<std::string>{"cpuset", "cpu", "io", "memory", "pids"}));
  EXPECT_TRUE(layout->v1_dirs.empty());

  // After a run moved us into <scope>/corral-self, runs still nest under the scope itself.
  fs::create_directories(root + kScope + "/corral-self");
  auto again =
      detect_cgroups(kV2Mountinfo, std::string("0::") + kScope + "/corral-self\n", t.path());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->v2_root, root + kScope);
}

TEST(CgroupDetect, PureV2WithoutControllersIsStillV2) {
  TempDir t;
  fs::create_directories(t.path() + "/sys/fs/cgroup");
  put(t.path() + "/sys/fs/cgroup/cgroup.controllers", "\n");
  auto layout = detect_cgroups(kV2Mountinfo, "0::/\n", t.path());
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->version, CgroupLayout::Version::v2);
  EXPECT_EQ(layout->v2_root, t.path() + "/sys/fs/cgroup");
  EXPECT_TRUE(layout->v2_controllers.empty());
}

TEST(CgroupDetect, V1OnlyWithCoMountedCpuAndCpuacct) {
  TempDir t;
  const std::string cg = t.path() + "/sys/fs/cgroup";
  for (const char* d :
       {"/systemd/user.slice/user-1000.slice/session-2.scope", "/cpu,cpuacct/user.slice",
        "/memory/user.slice/user-1000.slice/session-2.scope",
        "/pids/user.slice/user-1000.slice/session-2.scope", "/freezer"})
    fs::create_directories(cg + d);
  auto layout = detect_cgroups(kV1Mountinfo, kV1SelfCgroup, t.path());
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->version, CgroupLayout::Version::v1);
  EXPECT_TRUE(layout->v2_root.empty());
  EXPECT_EQ(layout->v1_dirs.at("cpu"), cg + "/cpu,cpuacct/user.slice");
  EXPECT_EQ(layout->v1_dirs.at("cpuacct"), cg + "/cpu,cpuacct/user.slice");
  EXPECT_EQ(layout->v1_dirs.at("memory"),
            cg + "/memory/user.slice/user-1000.slice/session-2.scope");
  EXPECT_EQ(layout->v1_dirs.at("pids"), cg + "/pids/user.slice/user-1000.slice/session-2.scope");
  EXPECT_EQ(layout->v1_dirs.at("freezer"), cg + "/freezer");
  EXPECT_EQ(layout->v1_dirs.size(), 5U);
}

TEST(CgroupDetect, NoCgroupsMounted) {
  auto layout = detect_cgroups("22 27 0:21 / /proc rw,relatime - proc proc rw\n", "0::/\n", "");
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->version, CgroupLayout::Version::none);
  EXPECT_TRUE(layout->v2_root.empty());
  EXPECT_TRUE(layout->v1_dirs.empty());
}

TEST(CgroupDetect, MountOfAForeignSubtreeIsIgnored) {
  // Our membership says /a but the dir does not exist under the mount: not usable.
  TempDir t;
  fs::create_directories(t.path() + "/sys/fs/cgroup");
  auto layout = detect_cgroups(kV2Mountinfo, "0::/not/here\n", t.path());
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->version, CgroupLayout::Version::none);
}

TEST(CgroupDetect, RealMachineIsConsistent) {
  auto layout = detect_cgroups();
  ASSERT_TRUE(layout.ok()) << layout.error().describe();
  for (const auto& [c, dir] : layout->v1_dirs)
    EXPECT_TRUE(fs::is_directory(dir)) << c << " " << dir;
  if (!layout->v2_root.empty()) {
    EXPECT_TRUE(fs::is_directory(layout->v2_root));
  }
  // This test runs on Linux machines with cgroups mounted; which kind varies.
  EXPECT_NE(layout->version, CgroupLayout::Version::none);
}

// --- parsing helpers -------------------------------------------------------------------------

TEST(CgroupParse, ControlFiles) {
  EXPECT_EQ(cgroup::keyed_u64("low 0\nhigh 0\nmax 7\noom 2\noom_kill 3\n", "oom_kill"), 3U);
  EXPECT_EQ(cgroup::keyed_u64("oom_kill_disable 0\nunder_oom 0\noom_kill 5\n", "oom_kill"), 5U);
  EXPECT_EQ(cgroup::keyed_u64("max 0\n", "oom_kill"), std::nullopt);
  EXPECT_EQ(cgroup::parse_u64(" 42\n"), 42U);
  EXPECT_EQ(cgroup::parse_u64("max\n"), std::nullopt);
  EXPECT_EQ(cgroup::parse_pids("12\n34\n"), (std::vector<pid_t>{12, 34}));
  EXPECT_TRUE(cgroup::valid_name("run-20250101.abc_1"));
  EXPECT_FALSE(cgroup::valid_name(".."));
  EXPECT_FALSE(cgroup::valid_name("a/b"));
  EXPECT_FALSE(cgroup::valid_name(""));
  EXPECT_EQ(*cgroup::cpu_quota_us(1.5), 150000U);
  EXPECT_FALSE(cgroup::cpu_quota_us(0.001).ok());
  EXPECT_FALSE(cgroup::cpu_quota_us(-1).ok());
}

// --- the fake v2 tree ------------------------------------------------------------------------

// A systemd-like pure v2 machine: memory, pids and cpu delegated down to a user's scope, in which
// our own process sits.
struct FakeV2 {
  explicit FakeV2(FakeCgroupFs::Options o = {}) : fake(std::make_shared<FakeCgroupFs>(o)) {
    root = t.path() + "/sys/fs/cgroup";
    fake->add_v2_root(root, "cpuset cpu io memory hugetlb pids rdma misc");
    fake->make_path(root, kScope, "cpu memory pids");
    scope = root + kScope;
    put(scope + "/cgroup.procs", std::to_string(::getpid()) + "\n");
  }
  CgroupLayout layout(const std::string& membership_suffix = "") {
    auto l = detect_cgroups(kV2Mountinfo, std::string("0::") + kScope + membership_suffix + "\n",
                            t.path());
    EXPECT_TRUE(l.ok());
    return *l;
  }
  TempDir t;
  std::shared_ptr<FakeCgroupFs> fake;
  std::string root, scope;
};

TEST(CgroupFakeV2, CreateLimitsAttachStatsKillRemove) {
  FakeV2 f;
  CgroupLayout layout = f.layout();
  ASSERT_EQ(layout.version, CgroupLayout::Version::v2);
  CgroupLimits limits{64ULL << 20, 32, 1.5};
  auto rc = RunCgroup::create(f.fake, layout, "run1", limits);
  ASSERT_TRUE(rc.ok()) << rc.error().describe();

  // Our process left the scope for corral-self, so the scope could hand controllers down.
  const std::string leaf = f.scope + "/corral/run1";
  EXPECT_EQ(words(slurp(f.scope + "/corral-self/cgroup.procs")),
            std::vector<std::string>{std::to_string(::getpid())});
  EXPECT_EQ(slurp(f.scope + "/cgroup.procs"), "");
  for (const std::string& dir : {f.scope, f.scope + "/corral"}) {
    std::vector<std::string> sc = words(slurp(dir + "/cgroup.subtree_control"));
    EXPECT_TRUE(has(sc, "memory") && has(sc, "pids") && has(sc, "cpu")) << dir;
  }
  EXPECT_EQ(slurp(leaf + "/memory.max"), std::to_string(64ULL << 20));
  EXPECT_EQ(slurp(leaf + "/memory.swap.max"), "0");
  EXPECT_EQ(slurp(leaf + "/pids.max"), "32");
  EXPECT_EQ(slurp(leaf + "/cpu.max"), "150000 100000");
  EXPECT_EQ(rc->paths(), std::vector<std::string>{leaf});

  // Pure v2: the fd alone places a clone3(CLONE_INTO_CGROUP) child.
  ASSERT_GE(rc->clone_into_fd(), 0);
  struct stat by_fd, by_path;
  ASSERT_EQ(::fstat(rc->clone_into_fd(), &by_fd), 0);
  ASSERT_EQ(::stat(leaf.c_str(), &by_path), 0);
  EXPECT_EQ(by_fd.st_ino, by_path.st_ino);

  Sleeper child;
  ASSERT_TRUE(rc->attach(child.pid()).ok());
  EXPECT_EQ(words(slurp(leaf + "/cgroup.procs")),
            std::vector<std::string>{std::to_string(child.pid())});

  // While it runs, the kernel would update these; the fake gets them written by hand.
  put(leaf + "/memory.peak", "12345678\n");
  put(leaf + "/memory.events", "low 0\nhigh 0\nmax 9\noom 2\noom_kill 2\noom_group_kill 0\n");
  put(leaf + "/cpu.stat", "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n");
  put(leaf + "/pids.events", "max 3\n");
  auto st = rc->stats();
  ASSERT_TRUE(st.ok()) << st.error().describe();
  EXPECT_EQ(st->peak_memory_bytes, 12345678U);
  EXPECT_TRUE(st->oom_killed);
  EXPECT_EQ(st->oom_kill_count, 2U);
  EXPECT_EQ(st->cpu_usage_ns, 1500000U);
  EXPECT_TRUE(st->pids_limit_hit);
  EXPECT_EQ(st->pids_max_events, 3U);

  // rmdir refuses while the child lives; cgroup.kill ends it.
  EXPECT_FALSE(f.fake->remove_dir(leaf) == 0);
  ASSERT_TRUE(rc->kill_all().ok());
  EXPECT_TRUE(killed_by_sigkill(child.wait_status()));
  EXPECT_TRUE(std::any_of(f.fake->writes.begin(), f.fake->writes.end(),
                          [&](const auto& w) { return w.first == leaf + "/cgroup.kill"; }));
  ASSERT_TRUE(rc->remove().ok());
  EXPECT_FALSE(fs::exists(leaf));
  EXPECT_TRUE(fs::exists(f.scope + "/corral"));  // shared by concurrent runs: stays
  EXPECT_TRUE(rc->paths().empty());
  EXPECT_TRUE(rc->remove().ok());  // idempotent

  // The next run, detected from inside corral-self, nests under the scope again and needs no
  // further moves.
  CgroupLayout next = f.layout("/corral-self");
  EXPECT_EQ(next.v2_root, f.scope);
  size_t writes_before = f.fake->writes.size();
  auto rc2 = RunCgroup::create(f.fake, next, "run2", limits);
  ASSERT_TRUE(rc2.ok()) << rc2.error().describe();
  for (size_t i = writes_before; i < f.fake->writes.size(); ++i) {
    EXPECT_NE(f.fake->writes[i].first, f.scope + "/corral-self/cgroup.procs");
    EXPECT_NE(f.fake->writes[i].first, f.scope + "/cgroup.subtree_control");
  }
  EXPECT_EQ(slurp(f.scope + "/corral/run2/pids.max"), "32");
  ASSERT_TRUE(rc2->remove().ok());
}

TEST(CgroupFakeV2, OlderKernelFreezesAndKillsWithoutCgroupKill) {
  FakeV2 f(FakeCgroupFs::Options{false, false, false});  // 5.10-ish: no cgroup.kill, memory.peak
  auto rc = RunCgroup::create(f.fake, f.layout(), "old", CgroupLimits{32ULL << 20, 8, {}});
  ASSERT_TRUE(rc.ok()) << rc.error().describe();
  const std::string leaf = f.scope + "/corral/old";
  EXPECT_FALSE(fs::exists(leaf + "/memory.swap.max"));  // no swap accounting: nothing to zero
  EXPECT_EQ(slurp(leaf + "/memory.max"), std::to_string(32ULL << 20));

  Sleeper a, b;
  ASSERT_TRUE(rc->attach(a.pid()).ok());
  ASSERT_TRUE(rc->attach(b.pid()).ok());
  put(leaf + "/memory.current", "777\n");
  auto st = rc->stats();
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->peak_memory_bytes, 777U);  // memory.current stands in for memory.peak
  EXPECT_FALSE(st->oom_killed);

  ASSERT_TRUE(rc->kill_all().ok());
  EXPECT_TRUE(killed_by_sigkill(a.wait_status()));
  EXPECT_TRUE(killed_by_sigkill(b.wait_status()));
  // Frozen before the kills, thawed after.
  std::vector<std::string> freezes;
  for (const auto& w : f.fake->writes)
    if (w.first == leaf + "/cgroup.freeze") freezes.push_back(w.second);
  EXPECT_EQ(freezes, (std::vector<std::string>{"1", "0"}));
  ASSERT_TRUE(rc->remove().ok());
}

TEST(CgroupFakeV2, WithoutLimitsNothingIsMovedButTheLeafServesKillAndUsage) {
  FakeV2 f;
  auto rc = RunCgroup::create(f.fake, f.layout(), "plain", CgroupLimits{});
  ASSERT_TRUE(rc.ok()) << rc.error().describe();
  // Optional controllers never justify moving the caller's processes.
  EXPECT_FALSE(fs::exists(f.scope + "/corral-self"));
  EXPECT_EQ(words(slurp(f.scope + "/cgroup.procs")),
            std::vector<std::string>{std::to_string(::getpid())});
  const std::string leaf = f.scope + "/corral/plain";
  EXPECT_EQ(rc->paths(), std::vector<std::string>{leaf});
  EXPECT_FALSE(fs::exists(leaf + "/memory.max"));
  put(leaf + "/cpu.stat", "usage_usec 20\n");
  auto st = rc->stats();
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->cpu_usage_ns, 20000U);
  EXPECT_EQ(st->peak_memory_bytes, 0U);
  ASSERT_TRUE(rc->remove().ok());
}

TEST(CgroupFakeV2, MissingControllerIsUnsupported) {
  TempDir t;
  auto fake = std::make_shared<FakeCgroupFs>();
  const std::string root = t.path() + "/sys/fs/cgroup";
  fake->add_v2_root(root, "cpu pids");  // memory not delegated (or not compiled in)
  auto layout = detect_cgroups(kV2Mountinfo, "0::/\n", t.path());
  ASSERT_TRUE(layout.ok());
  auto rc = RunCgroup::create(fake, *layout, "r", CgroupLimits{1 << 20, {}, {}});
  ASSERT_FALSE(rc.ok());
  EXPECT_EQ(rc.error().code, Errc::unsupported);
  EXPECT_EQ(rc.error().key, "limits.memory");
  EXPECT_NE(rc.error().message.find("memory limits need the memory cgroup controller"),
            std::string::npos)
      << rc.error().message;
  EXPECT_NE(rc.error().message.find(root), std::string::npos) << rc.error().message;
  EXPECT_FALSE(fs::exists(root + "/corral"));  // refused before creating anything

  // pids and cpu are there, so those limits work (at the hierarchy root: no internal-process rule).
  auto ok = RunCgroup::create(fake, *layout, "r", CgroupLimits{{}, 10, 0.5});
  ASSERT_TRUE(ok.ok()) << ok.error().describe();
  EXPECT_EQ(slurp(root + "/corral/r/cpu.max"), "50000 100000");
  ASSERT_TRUE(ok->remove().ok());
}

TEST(CgroupFakeV2, NotWritableIsUnsupportedWithDelegationHint) {
  FakeV2 f;
  f.fake->not_writable.insert(f.scope);  // a session scope: systemd did not delegate it
  auto rc = RunCgroup::create(f.fake, f.layout(), "r", CgroupLimits{{}, 10, {}});
  ASSERT_FALSE(rc.ok());
  EXPECT_EQ(rc.error().code, Errc::unsupported);
  EXPECT_EQ(rc.error().file, f.scope);
  const std::string& m = rc.error().message;
  EXPECT_NE(m.find("pids limits need a writable cgroup"), std::string::npos) << m;
  EXPECT_NE(m.find("run as root"), std::string::npos) << m;
  EXPECT_NE(m.find("systemd-run --user --scope -p Delegate=yes"), std::string::npos) << m;

  // Without limits there is nothing to refuse: an empty RunCgroup, and every method is a no-op.
  auto none = RunCgroup::create(f.fake, f.layout(), "r", CgroupLimits{});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->paths().empty());
  EXPECT_EQ(none->clone_into_fd(), -1);
  EXPECT_TRUE(none->attach(::getpid()).ok());
  EXPECT_TRUE(none->kill_all().ok());
  EXPECT_TRUE(none->stats().ok());
  EXPECT_TRUE(none->remove().ok());
}

TEST(CgroupFakeV2, BadInputsAndDuplicateIds) {
  FakeV2 f;
  CgroupLayout layout = f.layout();
  auto bad_id = RunCgroup::create(f.fake, layout, "../escape", CgroupLimits{});
  ASSERT_FALSE(bad_id.ok());
  EXPECT_EQ(bad_id.error().code, Errc::invalid_input);
  auto bad_parent = RunCgroup::create(f.fake, layout, "x", CgroupLimits{}, "corral-self");
  ASSERT_FALSE(bad_parent.ok());
  EXPECT_EQ(bad_parent.error().code, Errc::invalid_input);
  auto bad_cpus = RunCgroup::create(f.fake, layout, "x", CgroupLimits{{}, {}, 0.001});
  ASSERT_FALSE(bad_cpus.ok());
  EXPECT_EQ(bad_cpus.error().code, Errc::invalid_input);
  EXPECT_EQ(bad_cpus.error().key, "limits.cpus");
  auto zero_pids = RunCgroup::create(f.fake, layout, "x", CgroupLimits{{}, 0, {}});
  ASSERT_FALSE(zero_pids.ok());
  EXPECT_EQ(zero_pids.error().code, Errc::invalid_input);

  auto first = RunCgroup::create(f.fake, layout, "same", CgroupLimits{{}, 4, {}});
  ASSERT_TRUE(first.ok());
  auto second = RunCgroup::create(f.fake, layout, "same", CgroupLimits{{}, 4, {}});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, Errc::setup_failed);
  EXPECT_NE(second.error().message.find("already exists"), std::string::npos);
  EXPECT_TRUE(fs::exists(f.scope + "/corral/same"));  // the failed one did not remove it
  ASSERT_TRUE(first->remove().ok());
}

TEST(CgroupFakeV2, FailedCreateRemovesWhatItMade) {
  FakeV2 f;
  CgroupLayout layout = f.layout();
  // A kernel that rejects the value (as for a memory.max below current usage).
  struct Rejecting : FakeCgroupFs {
    int write_file(const std::string& path, const std::string& text) override {
      if (fs::path(path).filename() == "memory.max") return EBUSY;
      return FakeCgroupFs::write_file(path, text);
    }
  };
  auto rejecting = std::make_shared<Rejecting>();
  rejecting->adopt_v2_root(f.root);
  auto rc = RunCgroup::create(rejecting, layout, "r", CgroupLimits{1 << 20, {}, {}});
  ASSERT_FALSE(rc.ok());
  EXPECT_EQ(rc.error().code, Errc::setup_failed);
  EXPECT_EQ(rc.error().key, "limits.memory");
  EXPECT_NE(rc.error().message.find("memory.max"), std::string::npos) << rc.error().message;
  EXPECT_FALSE(fs::exists(f.scope + "/corral/r"));
}

// --- fake v1 and hybrid ----------------------------------------------------------------------

TEST(CgroupFakeV1, CoMountedCpuacctAndFreezer) {
  TempDir t;
  auto fake = std::make_shared<FakeCgroupFs>();
  const std::string cg = t.path() + "/sys/fs/cgroup";
  fake->add_v1_root(cg + "/cpu,cpuacct", {"cpu", "cpuacct"});
  fake->add_v1_root(cg + "/memory", {"memory"});
  fake->add_v1_root(cg + "/pids", {"pids"});
  fake->add_v1_root(cg + "/freezer", {"freezer"});
  fake->add_v1_root(cg + "/systemd", {});
  fake->make_path(cg + "/cpu,cpuacct", "/user.slice", "");
  fake->make_path(cg + "/memory", "/user.slice/user-1000.slice/session-2.scope", "");
  fake->make_path(cg + "/pids", "/user.slice/user-1000.slice/session-2.scope", "");
  fake->make_path(cg + "/systemd", "/user.slice/user-1000.slice/session-2.scope", "");
  auto layout = detect_cgroups(kV1Mountinfo, kV1SelfCgroup, t.path());
  ASSERT_TRUE(layout.ok());

  auto rc = RunCgroup::create(fake, *layout, "v1run", CgroupLimits{48ULL << 20, 16, 2.0});
  ASSERT_TRUE(rc.ok()) << rc.error().describe();
  const std::string cpu = cg + "/cpu,cpuacct/user.slice/corral/v1run";
  const std::string mem = cg + "/memory/user.slice/user-1000.slice/session-2.scope/corral/v1run";
  const std::string pids = cg + "/pids/user.slice/user-1000.slice/session-2.scope/corral/v1run";
  const std::string frz = cg + "/freezer/corral/v1run";
  EXPECT_EQ(rc->paths(), (std::vector<std::string>{cpu, frz, mem, pids}));  // one per hierarchy
  EXPECT_EQ(rc->clone_into_fd(), -1);
  EXPECT_EQ(slurp(mem + "/memory.limit_in_bytes"), std::to_string(48ULL << 20));
  EXPECT_EQ(slurp(mem + "/memory.memsw.limit_in_bytes"), std::to_string(48ULL << 20));
  EXPECT_EQ(slurp(mem + "/memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
  EXPECT_EQ(slurp(pids + "/pids.max"), "16");
  EXPECT_EQ(slurp(cpu + "/cpu.cfs_period_us"), "100000");
  EXPECT_EQ(slurp(cpu + "/cpu.cfs_quota_us"), "200000");

  Sleeper child;
  ASSERT_TRUE(rc->attach(child.pid()).ok());
  for (const std::string& d : rc->paths())
    EXPECT_EQ(words(slurp(d + "/cgroup.procs")),
              std::vector<std::string>{std::to_string(child.pid())})
        << d;

  put(mem + "/memory.max_usage_in_bytes", "50331648\n");
  put(mem + "/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
  put(cpu + "/cpuacct.usage", "987654321\n");
  put(pids + "/pids.events", "max 0\n");
  auto st = rc->stats();
  ASSERT_TRUE(st.ok()) << st.error().describe();
  EXPECT_EQ(st->peak_memory_bytes, 50331648U);
  EXPECT_TRUE(st->oom_killed);
  EXPECT_EQ(st->cpu_usage_ns, 987654321U);
  EXPECT_FALSE(st->pids_limit_hit);

  ASSERT_TRUE(rc->kill_all().ok());
  EXPECT_TRUE(killed_by_sigkill(child.wait_status()));
  std::vector<std::string> states;
  for (const auto& w : fake->writes)
    if (w.first == frz + "/freezer.state") states.push_back(w.second);
  EXPECT_EQ(states, (std::vector<std::string>{"FROZEN", "THAWED"}));
  ASSERT_TRUE(rc->remove().ok());
  for (const std::string& d : {cpu, mem, pids, frz}) EXPECT_FALSE(fs::exists(d)) << d;
}

TEST(CgroupFakeHybrid, PerControllerChoiceBetweenV2AndV1) {
  // v2 offers pids only; memory and cpu live in v1: each limit goes where its controller is.
  TempDir t;
  auto fake = std::make_shared<FakeCgroupFs>();
  const std::string cg = t.path() + "/sys/fs/cgroup";
  for (const char* c :
       {"cpu", "cpuacct", "cpuset", "memory", "devices", "freezer", "blkio", "systemd"})
    fake->add_v1_root(cg + "/" + c, {c});
  fake->add_v2_root(cg + "/unified", "pids");
  fake->make_path(cg + "/memory", "/process_api/bd5ad09e0d004678d194dfb0332379a5", "");
  // The pids mount of kHybridMountinfo is absent from this tree; drop it from the text.
  std::string mountinfo = kHybridMountinfo;
  mountinfo.erase(mountinfo.find("39 31"), mountinfo.find("40 31") - mountinfo.find("39 31"));
  auto layout = detect_cgroups(mountinfo, kHybridSelfCgroup, t.path());
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->version, CgroupLayout::Version::v1);

  auto rc = RunCgroup::create(fake, *layout, "h", CgroupLimits{32ULL << 20, 5, 0.5});
  ASSERT_TRUE(rc.ok()) << rc.error().describe();
  const std::string v2 = cg + "/unified/corral/h";
  const std::string mem = cg + "/memory/process_api/bd5ad09e0d004678d194dfb0332379a5/corral/h";
  EXPECT_EQ(rc->paths().front(), v2);
  EXPECT_EQ(slurp(v2 + "/pids.max"), "5");
  EXPECT_EQ(slurp(mem + "/memory.limit_in_bytes"), std::to_string(32ULL << 20));
  EXPECT_EQ(slurp(cg + "/cpu/corral/h/cpu.cfs_quota_us"), "50000");
  // The v2 leaf does freezing and usage, so the v1 cpuacct and freezer hierarchies stay unused.
  EXPECT_FALSE(fs::exists(cg + "/cpuacct/corral"));
  EXPECT_FALSE(fs::exists(cg + "/freezer/corral"));
  EXPECT_EQ(rc->clone_into_fd(), -1);  // the v1 memberships need attach()

  Sleeper child;
  ASSERT_TRUE(rc->attach(child.pid()).ok());
  for (const std::string& d : rc->paths())
    EXPECT_EQ(words(slurp(d + "/cgroup.procs")),
              std::vector<std::string>{std::to_string(child.pid())})
        << d;
  ASSERT_TRUE(rc->kill_all().ok());
  EXPECT_TRUE(killed_by_sigkill(child.wait_status()));
  ASSERT_TRUE(rc->remove().ok());
}

// --- reaping ---------------------------------------------------------------------------------

TEST(CgroupReap, RemovesOnlyOldCgroupsOfDeadRuns) {
  FakeV2 f;
  CgroupLayout layout = f.layout();
  std::map<std::string, RunCgroup> runs;
  for (const char* id : {"live", "empty", "busy", "young"}) {
    auto rc = RunCgroup::create(f.fake, layout, id, CgroupLimits{{}, 64, {}});
    ASSERT_TRUE(rc.ok()) << rc.error().describe();
    runs.emplace(id, std::move(*rc));
  }
  Sleeper in_busy, in_young, in_live;
  ASSERT_TRUE(runs.at("busy").attach(in_busy.pid()).ok());
  ASSERT_TRUE(runs.at("young").attach(in_young.pid()).ok());
  ASSERT_TRUE(runs.at("live").attach(in_live.pid()).ok());
  // As if the crashed runner had made them ten minutes ago.
  for (const char* id : {"live", "empty", "busy"}) {
    std::string dir = f.scope + "/corral/" + id;
    timespec old[2] = {{::time(nullptr) - 600, 0}, {::time(nullptr) - 600, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, dir.c_str(), old, 0), 0);
  }
  // The runners died without cleaning up: forget the objects (their destructors would rmdir).
  for (auto& [id, rc] : runs) {
    RunCgroup dropped = std::move(rc);
    (void)dropped;  // rmdir fails for busy ones; "empty" would go here, so recreate it below
  }
  ASSERT_EQ(f.fake->make_dir(f.scope + "/corral/empty"), 0);
  timespec old[2] = {{::time(nullptr) - 600, 0}, {::time(nullptr) - 600, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, (f.scope + "/corral/empty").c_str(), old, 0), 0);

  auto removed = reap_stale_cgroups(
      f.fake, layout, [](const std::string& id) { return id == "live"; }, std::chrono::seconds(60),
      "corral");
  ASSERT_TRUE(removed.ok()) << removed.error().describe();
  std::vector<std::string> got = *removed;
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{f.scope + "/corral/busy", f.scope + "/corral/empty"}));
  EXPECT_TRUE(killed_by_sigkill(in_busy.wait_status()));
  EXPECT_TRUE(fs::exists(f.scope + "/corral/live"));
  EXPECT_TRUE(fs::exists(f.scope + "/corral/young"));
  EXPECT_TRUE(alive(in_young.pid()));
  EXPECT_TRUE(alive(in_live.pid()));

  // Nothing left to do when run again; and corral-self (not under corral/) is never touched.
  auto again = reap_stale_cgroups(
      f.fake, layout, [](const std::string& id) { return id == "live"; }, std::chrono::seconds(60),
      "corral");
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
}

// --- the real hierarchy of this machine ------------------------------------------------------

// Reads one int from `fd` (written by a forked child); -1 on EOF.
long read_long(int fd) {
  long v = -1;
  ssize_t n = ::read(fd, &v, sizeof v);
  return n == static_cast<ssize_t>(sizeof v) ? v : -1;
}

// The dir that would hold a memory limit for us, and whether this user may create cgroups there.
bool memory_cgroup_writable(const CgroupLayout& layout, std::string& dir) {
  if (has(layout.v2_controllers, "memory"))
    dir = layout.v2_root;
  else if (layout.v1_dirs.count("memory"))
    dir = layout.v1_dirs.at("memory");
  else
    return false;
  return ::access(dir.c_str(), W_OK) == 0;
}

// A child parked on a pipe until the parent has attached it, then running `body`.
template <typename Body>
pid_t fork_parked(int& go_write, Body body) {
  int go[2];
  if (::pipe(go) != 0) return -1;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(go[1]);
    char c;
    if (::read(go[0], &c, 1) != 1) ::_exit(99);
    body();
    ::_exit(0);
  }
  ::close(go[0]);
  go_write = go[1];
  return pid;
}

TEST(CgroupReal, LimitsOnThisMachineOrActionableRefusal) {
  auto layout = detect_cgroups();
  ASSERT_TRUE(layout.ok()) << layout.error().describe();
  // A parent of our own, so concurrent test runs and real runs never see each other's cgroups.
  const std::string parent = "corral-test-" + std::to_string(::getpid());
  const CgroupLimits limits{32ULL << 20, 5, 0.5};
  std::string mem_dir;
  const bool writable = memory_cgroup_writable(*layout, mem_dir);

  if (::geteuid() != 0 && !writable) {
    // An unprivileged user without a delegated cgroup: refuse, say why and what to do.
    auto rc = RunCgroup::create(*layout, "refused", limits, parent);
    ASSERT_FALSE(rc.ok()) << "creating a cgroup under " << mem_dir << " should be refused";
    EXPECT_EQ(rc.error().code, Errc::unsupported);
    const std::string& m = rc.error().message;
    EXPECT_NE(m.find("limits need a writable cgroup"), std::string::npos) << m;
    EXPECT_NE(m.find("run as root, or on cgroup v2 with a delegated subtree"), std::string::npos)
        << m;
    EXPECT_NE(m.find("systemd-run --user --scope -p Delegate=yes"), std::string::npos) << m;
    EXPECT_NE(m.find(rc.error().file), std::string::npos) << m;
    EXPECT_FALSE(rc.error().file.empty());
    EXPECT_FALSE(rc.error().key.empty());
    // Without limits nothing is refused, and reaping a tree we cannot write finds nothing.
    auto plain = RunCgroup::create(*layout, "plain", CgroupLimits{}, parent);
    ASSERT_TRUE(plain.ok()) << plain.error().describe();
    EXPECT_TRUE(plain->remove().ok());
    auto reaped = reap_stale_cgroups(
        *layout, [](const std::string&) { return false; }, std::chrono::seconds(0), parent);
    ASSERT_TRUE(reaped.ok()) << reaped.error().describe();
    EXPECT_TRUE(reaped->empty());
    return;
  }

  // Root (or a delegated v2 user): real limits, really enforced.
  ASSERT_TRUE(writable) << "root but no memory cgroup controller at all on this machine";
  auto rc = RunCgroup::create(*layout, "limits", limits, parent);
  ASSERT_TRUE(rc.ok()) << rc.error().describe();
  ASSERT_FALSE(rc->paths().empty());
  for (const std::string& p : rc->paths()) EXPECT_TRUE(fs::is_directory(p)) << p;
  if (auto it = layout->v1_dirs.find("cpu");
      it != layout->v1_dirs.end() && !has(layout->v2_controllers, "cpu")) {
    EXPECT_EQ(cgroup::parse_u64(slurp(it->second + "/" + parent + "/limits/cpu.cfs_quota_us")),
              50000U);
  }

  // 1. A child that burns a little CPU, then allocates 4x the memory limit: OOM-killed.
  int go = -1;
  pid_t hog = fork_parked(go, [] {
    volatile unsigned long spin = 0;
    for (unsigned long i = 0; i < 50000000UL; ++i) spin = spin + i;
    const size_t size = 128UL << 20;
    char* p = static_cast<char*>(std::malloc(size));
    if (p == nullptr) ::_exit(98);
    for (size_t i = 0; i < size; i += 4096) p[i] = 1;  // touch every page
    ::_exit(97);                                       // survived: the limit did not hold
  });
  ASSERT_GT(hog, 0);
  ASSERT_TRUE(rc->attach(hog).ok());
  ASSERT_EQ(::write(go, "g", 1), 1);
  ::close(go);
  int status = 0;
  ASSERT_EQ(::waitpid(hog, &status, 0), hog);
  EXPECT_TRUE(killed_by_sigkill(status)) << "status " << status;
  auto st = rc->stats();
  ASSERT_TRUE(st.ok()) << st.error().describe();
  EXPECT_TRUE(st->oom_killed);
  EXPECT_GE(st->oom_kill_count, 1U);
  EXPECT_GE(st->peak_memory_bytes, 16ULL << 20);
  EXPECT_LE(st->peak_memory_bytes, (32ULL << 20) + (1ULL << 20));
  EXPECT_GT(st->cpu_usage_ns, 0U);
  EXPECT_FALSE(st->pids_limit_hit);

  // 2. pids.max = 5: the child is task 1, four forks succeed, the fifth (6th task) gets EAGAIN.
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  pid_t forker = fork_parked(go, [&] {
    long forked = 0, err = 0;
    for (int i = 0; i < 10; ++i) {
      pid_t p = ::fork();
      if (p == 0) {
        for (;;) ::pause();
      }
      if (p < 0) {
        err = errno;
        break;
      }
      ++forked;
    }
    ssize_t w1 = ::write(report[1], &forked, sizeof forked);
    ssize_t w2 = ::write(report[1], &err, sizeof err);
    (void)w1;
    (void)w2;
    for (;;) ::pause();  // stay, with the grandchildren, until kill_all
  });
  ASSERT_GT(forker, 0);
  ::close(report[1]);
  ASSERT_TRUE(rc->attach(forker).ok());
  ASSERT_EQ(::write(go, "g", 1), 1);
  ::close(go);
  EXPECT_EQ(read_long(report[0]), 4);
  EXPECT_EQ(read_long(report[0]), EAGAIN);
  ::close(report[0]);
  st = rc->stats();
  ASSERT_TRUE(st.ok());
  EXPECT_TRUE(st->pids_limit_hit);
  EXPECT_GE(st->pids_max_events, 1U);

  // 3. kill_all takes the child and its four grandchildren; remove() then succeeds.
  ASSERT_TRUE(rc->kill_all().ok());
  ASSERT_EQ(::waitpid(forker, &status, 0), forker);
  EXPECT_TRUE(killed_by_sigkill(status));
  for (const std::string& p : rc->paths()) EXPECT_EQ(slurp(p + "/cgroup.procs"), "") << p;
  std::vector<std::string> made = rc->paths();
  ASSERT_TRUE(rc->remove().ok());
  for (const std::string& p : made) EXPECT_FALSE(fs::exists(p)) << p;

  // 4. A run whose runner vanished: reaping kills its process and removes its cgroups.
  std::vector<std::string> stale_paths;
  pid_t orphan;
  {
    auto stale = RunCgroup::create(*layout, "stale", CgroupLimits{64ULL << 20, 10, {}}, parent);
    ASSERT_TRUE(stale.ok()) << stale.error().describe();
    orphan = fork_parked(go, [] {
      for (;;) ::pause();
    });
    ASSERT_TRUE(stale->attach(orphan).ok());
    stale_paths = stale->paths();
  }  // destructor: rmdir fails (busy); the cgroups stay, as after a crash
  for (const std::string& p : stale_paths) EXPECT_TRUE(fs::exists(p)) << p;
  auto reaped = reap_stale_cgroups(
      *layout, [](const std::string&) { return false; }, std::chrono::seconds(0), parent);
  ASSERT_TRUE(reaped.ok()) << reaped.error().describe();
  std::vector<std::string> got = *reaped;
  std::sort(got.begin(), got.end());
  std::sort(stale_paths.begin(), stale_paths.end());
  EXPECT_EQ(got, stale_paths);
  ASSERT_EQ(::waitpid(orphan, &status, 0), orphan);
  EXPECT_TRUE(killed_by_sigkill(status));
  ::close(go);

  // Our private parent dirs go too.
  for (const std::string& p : stale_paths) ::rmdir(fs::path(p).parent_path().c_str());
}

// The real filesystem, except that cgroup.kill seems absent (as before Linux 5.14), so kill_all
// has to freeze, kill and thaw through the real cgroup.freeze.
struct NoCgroupKillFs : PosixCgroupFs {
  bool exists(const std::string& path) override {
    return fs::path(path).filename() != "cgroup.kill" && PosixCgroupFs::exists(path);
  }
};

// A child of a run that forks three grandchildren, reports, and waits; kill_all must take all.
void run_family_and_kill(RunCgroup& rc, bool clone_into) {
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  auto family = [&] {
    for (int i = 0; i < 3; ++i)
      if (::fork() == 0) {
        for (;;) ::pause();
      }
    char c = 'r';
    ssize_t w = ::write(report[1], &c, 1);
    (void)w;
    for (;;) ::pause();
  };
  pid_t pid;
  int go = -1;
  if (clone_into) {
    // clone3(CLONE_INTO_CGROUP): born in the leaf, no attach() needed.
    ASSERT_GE(rc.clone_into_fd(), 0);
    clone_args args;
    std::memset(&args, 0, sizeof args);
    args.flags = CLONE_INTO_CGROUP;
    args.cgroup = static_cast<std::uint64_t>(rc.clone_into_fd());
    args.exit_signal = SIGCHLD;
    pid = static_cast<pid_t>(::syscall(SYS_clone3, &args, sizeof args));
    if (pid == 0) {
      family();
      ::_exit(0);
    }
    ASSERT_GT(pid, 0) << std::strerror(errno);
  } else {
    pid = fork_parked(go, family);
    ASSERT_GT(pid, 0);
    ASSERT_TRUE(rc.attach(pid).ok());
    ASSERT_EQ(::write(go, "g", 1), 1);
    ::close(go);
  }
  ::close(report[1]);
  char c;
  ASSERT_EQ(::read(report[0], &c, 1), 1);
  ::close(report[0]);
  for (const std::string& p : rc.paths())
    EXPECT_EQ(words(slurp(p + "/cgroup.procs")).size(), 4U) << p;
  ASSERT_TRUE(rc.kill_all().ok());
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(killed_by_sigkill(status));
  for (const std::string& p : rc.paths()) EXPECT_EQ(slurp(p + "/cgroup.procs"), "") << p;
  auto st = rc.stats();
  ASSERT_TRUE(st.ok()) << st.error().describe();
  EXPECT_GT(st->cpu_usage_ns, 0U);
  std::vector<std::string> made = rc.paths();
  ASSERT_TRUE(rc.remove().ok());
  for (const std::string& p : made) EXPECT_FALSE(fs::exists(p)) << p;
}

TEST(CgroupReal, EveryKillPathOnThisMachine) {
  auto layout = detect_cgroups();
  ASSERT_TRUE(layout.ok()) << layout.error().describe();
  const std::string parent = "corral-test-kill-" + std::to_string(::getpid());
  // Narrowed copies of the real layout: the v2 hierarchy alone, and the v1 hierarchies alone.
  CgroupLayout v2_only = *layout;
  v2_only.v1_dirs.clear();
  CgroupLayout v1_only = *layout;
  v1_only.v2_root.clear();
  v1_only.v2_controllers.clear();
  struct Variant {
    const char* name;
    const CgroupLayout* layout;
    std::shared_ptr<CgroupFs> fs;
    bool clone_into;
  };
  std::vector<Variant> variants;
  if (!layout->v2_root.empty()) {
    variants.push_back({"v2 cgroup.kill", &v2_only, real_cgroup_fs(), true});
    variants.push_back({"v2 cgroup.freeze", &v2_only, std::make_shared<NoCgroupKillFs>(), true});
  }
  if (layout->v1_dirs.count("freezer"))
    variants.push_back({"v1 freezer", &v1_only, real_cgroup_fs(), false});
  ASSERT_FALSE(variants.empty()) << "no cgroup hierarchy on this machine";
  int exercised = 0;
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.name);
    auto rc = RunCgroup::create(v.fs, *v.layout, "k", CgroupLimits{}, parent);
    ASSERT_TRUE(rc.ok()) << rc.error().describe();  // no limits: never refused
    if (rc->paths().empty()) {
      // Nothing writable for this user: an empty run cgroup, which only root never gets.
      EXPECT_NE(::geteuid(), 0U);
      EXPECT_EQ(rc->clone_into_fd(), -1);
      continue;
    }
    ++exercised;
    run_family_and_kill(*rc, v.clone_into);
  }
  if (::geteuid() == 0) {
    EXPECT_EQ(exercised, static_cast<int>(variants.size()));
  }
  // Our private parent dirs go too.
  if (!layout->v2_root.empty()) ::rmdir((layout->v2_root + "/" + parent).c_str());
  for (const auto& [c, dir] : layout->v1_dirs) ::rmdir((dir + "/" + parent).c_str());
}

}  // namespace
}  // namespace corral
