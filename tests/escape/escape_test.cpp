// The escape suite: real attempts to get out of `corral run`, each through the real binary, each
// asserting that the attempt failed, that the host is as it was, and that the run record names
// the attempt where corral can observe it (writes, blocked syscalls). Reads of denied paths
// cannot be observed; those tests assert the record says so.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "integration/cli_support.hpp"

namespace corral::test {
namespace {

class Escape : public ::testing::Test {
 protected:
  void SetUp() override {
    // A host directory beside the workspace, visible read-only inside (as most of the host is).
    std::filesystem::create_directories(outside_.path() + "/dir");
    write_file(outside_.file("victim"), "original");
    write_file(outside_.path() + "/dir/secret", "TOPSECRET");
  }

  // Runs a shell script in the sandbox; `outside_` is visible read-only and
  // `outside_/dir/secret` is denied.
  CliResult attempt(const std::string& script, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"run",          "--workspace", ws_.path(),
                                  "--record",     record_path(), "--ro",
                                  outside_.path(), "--deny-read", outside_.path() + "/dir/secret"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", "/bin/bash", "-c", script});
    return run_corral(args, CliOptions{ws_.path()});
  }

  void expect_victim_intact() {
    EXPECT_EQ(read_file(outside_.file("victim")), "original");
    EXPECT_EQ(read_file(outside_.path() + "/dir/secret"), "TOPSECRET");
  }

  // The attempt printed ESCAPED only if it got through.
  static void expect_refused(const CliResult& r) {
    EXPECT_EQ(r.out.find("ESCAPED"), std::string::npos) << "stdout: " << r.out << "\nstderr: " << r.err;
    EXPECT_EQ(r.out.find("TOPSECRET"), std::string::npos) << r.out;
  }

  std::string record_path() const { return rec_.file("record.json"); }
  nlohmann::json record() const { return nlohmann::json::parse(read_file(record_path())); }

  // The record holds a `kind` violation whose subject contains `subject`.
  void expect_recorded(const std::string& kind, const std::string& subject) const {
    auto j = record();
    for (const auto& v : j["violations"])
      if (v["kind"] == kind && v["subject"].get<std::string>().find(subject) != std::string::npos)
        return;
    ADD_FAILURE() << kind << " violation on " << subject
                  << " missing from the record: " << j["violations"].dump();
  }
  // Reads of a denied path see an empty mask; the record must say it cannot see them.
  void expect_reads_not_observed() const {
    auto j = record();
    for (const auto& n : j["not_observed"])
      if (n.get<std::string>().rfind("filesystem reads", 0) == 0) return;
    ADD_FAILURE() << "the record does not say reads go unobserved: " << j["not_observed"].dump();
  }

  // A read attempt on the denied secret, twice: by default the record says reads go
  // unobserved; with --watch-reads the attempt is a violation naming the read_deny path.
  void expect_read_refused_both_ways(const std::string& script) {
    expect_refused(attempt(script));
    expect_victim_intact();
    expect_reads_not_observed();
    expect_refused(attempt(script, {"--watch-reads"}));
    expect_victim_intact();
    const std::string deny = outside_.path() + "/dir/secret";
    auto j = record();
    for (const auto& v : j["violations"])
      if (v["kind"] == "filesystem" &&
          v["detail"].get<std::string>().find("a read of read_deny " + deny) != std::string::npos)
        return;
    ADD_FAILURE() << "no read of " << deny << " in the record: " << j["violations"].dump();
  }

  void clear_workspace() {
    std::filesystem::remove_all(ws_.path());
    std::filesystem::create_directories(ws_.path());
  }
  // In a clean workspace (no .git, no .bashrc: absent write_deny paths), `script` tries to
  // create one; it must print no ESCAPED and leave a refusal by corral's monitor in the record.
  void attempt_absent_deny_write(const std::string& script) {
    clear_workspace();
    auto r = attempt(script + " && echo ESCAPED; true");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_refused(r);
    expect_refused_by_corral();
  }
  // The record holds a refusal by corral's monitor itself (not by a mount or Landlock).
  void expect_refused_by_corral() const {
    const auto rec = record();
    bool refused = false;
    for (const auto& v : rec["violations"])
      refused = refused || v["detail"].get<std::string>().find("refused by corral with EROFS") !=
                               std::string::npos;
    EXPECT_TRUE(refused) << rec["violations"].dump();
  }

  TempDir ws_, outside_, rec_;
};

// --- writing outside the workspace ---

TEST_F(Escape, WriteThroughSymlinkInWorkspace) {
  auto r = attempt("ln -s " + outside_.file("victim") + " link && echo evil > link && echo ESCAPED");
  expect_refused(r);
  expect_victim_intact();
  // The record names where the write would have landed: the link's target.
  expect_recorded("filesystem", outside_.file("victim"));
}

TEST_F(Escape, HardLinkHostFileIntoWorkspace) {
  auto r = attempt("ln " + outside_.file("victim") + " hl && echo evil > hl && echo ESCAPED");
  expect_refused(r);
  expect_victim_intact();
  expect_recorded("filesystem", outside_.file("victim"));  // EXDEV: another mount
}

TEST_F(Escape, DotDotOutOfTheWorkspace) {
  // A workspace whose parent is a host directory (visible read-only).
  std::string ws = outside_.path() + "/ws";
  std::filesystem::create_directories(ws);
  auto r = run_corral({"run", "--workspace", ws, "--record", record_path(), "--ro",
                       outside_.path(), "--", "/bin/sh", "-c",
                       "echo evil > ../victim && echo ESCAPED; echo evil > ../new && echo ESCAPED; "
                       "cd .. && echo evil > victim && echo ESCAPED"},
                      CliOptions{ws});
  expect_refused(r);
  expect_victim_intact();
  EXPECT_FALSE(path_exists(outside_.file("new")));
  expect_recorded("filesystem", outside_.file("victim"));
  expect_recorded("filesystem", outside_.file("new"));
}

TEST_F(Escape, ProcSelfRoot) {
  auto r = attempt("echo evil > /proc/self/root" + outside_.file("victim") + " && echo ESCAPED; "
                   "echo evil > /proc/1/root" + outside_.file("victim") + " && echo ESCAPED");
  expect_refused(r);
  expect_victim_intact();
  expect_recorded("filesystem", outside_.file("victim"));
}

TEST_F(Escape, ProcOfAHostProcessIsNotThere) {
  // The test process's own pid is a host process the sandbox must not see.
  auto r = attempt("ls /proc/" + std::to_string(getppid()) + "/cwd/ && echo ESCAPED; "
                   "cat /proc/" + std::to_string(getpid()) + "/environ && echo ESCAPED");
  expect_refused(r);
}

TEST_F(Escape, RenameOutOfTheWorkspace) {
  write_file(ws_.file("mine"), "x");
  auto r = attempt("mv mine " + outside_.file("mine") + " && echo ESCAPED");
  expect_refused(r);
  EXPECT_FALSE(path_exists(outside_.file("mine")));
  expect_recorded("filesystem", outside_.file("mine"));
}

TEST_F(Escape, RemountRootReadWrite) {
  auto r = attempt("mount -o remount,rw / && echo ESCAPED; mount -o remount,rw " + outside_.path() +
                   " && echo ESCAPED; echo evil > " + outside_.file("victim") + " && echo ESCAPED");
  expect_refused(r);
  expect_victim_intact();
  expect_recorded("seccomp", "mount");
  expect_recorded("filesystem", outside_.file("victim"));
}

TEST_F(Escape, BindMountOverTheWorkspace) {
  auto r = attempt("mkdir -p m && mount --bind " + outside_.path() + " m && echo ESCAPED; "
                   "mount -t tmpfs none " + outside_.path() + " && echo ESCAPED");
  expect_refused(r);
  expect_recorded("seccomp", "mount");
}

TEST_F(Escape, NestedUserNamespaceCannotUnlockMounts) {
  // Even if a nested user namespace is allowed, its mounts cannot make a locked read-only
  // mount writable.
  auto r = attempt("unshare -Urm sh -c 'mount -o remount,rw " + outside_.path() + " && echo ESCAPED; "
                   "umount " + outside_.path() + " && echo ESCAPED; echo evil > " + outside_.file("victim") +
                   " && echo ESCAPED'");
  expect_refused(r);
  expect_victim_intact();
  expect_recorded("seccomp", "unshare");
}

TEST_F(Escape, ChmodTheDeniedDirectory) {
  auto r = attempt("chmod 777 " + outside_.path() + "/dir/secret && cat " + outside_.path() + "/dir/secret");
  expect_refused(r);
  expect_recorded("filesystem", outside_.path() + "/dir/secret");
}

TEST_F(Escape, WriteGitHooks) {
  std::filesystem::create_directories(ws_.path() + "/.git/hooks");
  auto r = attempt("echo 'rm -rf ~' > .git/hooks/post-checkout && echo ESCAPED; "
                   "rm -rf .git/hooks && echo ESCAPED; mv .git/hooks .git/h2 && echo ESCAPED");
  expect_refused(r);
  EXPECT_TRUE(path_exists(ws_.path() + "/.git/hooks"));
  EXPECT_FALSE(path_exists(ws_.path() + "/.git/hooks/post-checkout"));
  expect_recorded("filesystem", ws_.path() + "/.git/hooks/post-checkout");
  expect_recorded("filesystem", ws_.path() + "/.git/hooks");
}

// No .git at the start: no mount can protect .git/hooks or .git/config, so corral's monitor
// refuses what would create them, by every name we know: directly, through a symlinked parent,
// ".." after a directory, a dangling symlink, a dirfd, /proc/self/cwd and /dev/fd magic links,
// mknod, a tree renamed or exchanged into place or a symlink put in place of .git, and git
// init itself. Each attempt runs in a clean workspace and must leave a refusal in the record.
TEST_F(Escape, CreateGitHooksWhereNoRepositoryWasYet) {
  const std::string cfg = ws_.path() + "/.git/config";
  const std::vector<std::string> attempts = {
      "mkdir -p .git/hooks",
      "mkdir .git && ln -s .git g && mkdir g/hooks",
      "mkdir -p .git/a && mkdir .git/a/../hooks",
      "ln -s " + cfg + " cfg && mkdir .git && echo '[core] fsmonitor = evil' > cfg",
      "mkdir .git && python3 -c 'import os; os.mkdir(\"hooks\", dir_fd=os.open(\".git\", "
      "os.O_RDONLY))'",
      "mkdir .git && mkdir /proc/self/cwd/.git/hooks",
      "mkdir .git && exec 3<.git && mkdir /dev/fd/3/hooks",
      "mkdir .git && mknod .git/config p",
      "mkdir -p t/hooks && mv t .git",
      "mkdir t && ln -s t .git",
      "mkdir .git && mkdir -p t/hooks && python3 -c 'import ctypes, sys; "
      "sys.exit(ctypes.CDLL(None).renameat2(-100, b\".git\", -100, b\"t\", 2) == -1)'",
      "git init -q .",
  };
  for (const auto& script : attempts) {
    SCOPED_TRACE(script);
    attempt_absent_deny_write(script);
    EXPECT_FALSE(path_exists(ws_.path() + "/.git/hooks"));
    EXPECT_FALSE(path_exists(cfg));
    EXPECT_FALSE(std::filesystem::is_symlink(ws_.path() + "/.git"));
  }
}

// The same guard against paths the monitor must not take at face value: /proc/self seen from
// the caller (not from corral), a symlink into /proc/self, ".." after a symlink, an
// execute-only page holding the path. A harmless write through /proc/self/cwd still works.
TEST_F(Escape, CreateAShellRcFileThroughProcAndDotDot) {
  const std::vector<std::string> attempts = {
      "echo x > /proc/self/task/$$/cwd/.bashrc",
      "ln -s /proc/self/cwd/.bashrc l && echo x > l",
      "exec 200<. && ln -s /proc/self/fd/200 d && echo x > d/.bashrc",
      "mkdir a sub && ln -s ../sub a/link && echo x > a/link/../.bashrc",
      "echo x > /proc/self/cwd/../$(basename $PWD)/.bashrc",
      "python3 -c 'import mmap, ctypes, os\n"
      "m = mmap.mmap(-1, 4096); m.write(b\".bashrc\\0\")\n"
      "a = ctypes.addressof(ctypes.c_char.from_buffer(m))\n"
      "ctypes.CDLL(None).mprotect(ctypes.c_void_p(a), 4096, 4)\n"  // PROT_EXEC only
      "fd = ctypes.CDLL(None).open(ctypes.c_void_p(a), os.O_CREAT | os.O_WRONLY, 0o644)\n"
      "raise SystemExit(0 if fd >= 0 else 1)'",
  };
  for (const auto& script : attempts) {
    SCOPED_TRACE(script);
    attempt_absent_deny_write(script);
    EXPECT_FALSE(path_exists(ws_.path() + "/.bashrc"));
  }
  clear_workspace();
  auto ok = attempt("ln -s . d && echo fine > d/harmless.txt && cat harmless.txt");
  EXPECT_EQ(ok.out, "fine\n") << ok.err;
}

// write_deny holds a path, not an inode: moving, replacing or removing what leads to it (a
// renamed .git, an unlinked or replaced .git symlink) would let the path be re-created
// unprotected, so corral's monitor refuses those. And a ".." after a symlink (with a decoy
// of the lexical name) must not get a write past the absent-path check.
TEST_F(Escape, MoveOrReplaceTheWayToGitHooks) {
  const std::string ws = ws_.path();
  struct Case {
    bool symlinked_git;  // .git -> realgit (else a plain .git)
    std::string script;
  };
  const std::vector<Case> cases = {
      {false, "mv .git .git.old && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit"},
      {false, "mkdir other && mv .git other/ && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit"},
      // renameat2(RENAME_EXCHANGE) of a prepared tree with .git.
      {false, "mkdir -p x/hooks && echo evil > x/hooks/pre-commit && python3 -c 'import ctypes; "
              "raise SystemExit(ctypes.CDLL(None).syscall(316, -100, b\"x\", -100, b\".git\", "
              "2) != 0)'"},
      {true, "rm .git && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit"},
      {true, "ln -s /tmp x && mv -T x .git && mkdir -p /tmp/hooks"},
      {true, "mv realgit r2 && mkdir -p realgit/hooks && echo evil > realgit/hooks/pre-commit"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.script);
    clear_workspace();
    const std::string git = ws + (c.symlinked_git ? "/realgit" : "/.git");
    std::filesystem::create_directories(git + "/hooks");
    write_file(git + "/config", "[core]\n");
    if (c.symlinked_git) std::filesystem::create_directory_symlink("realgit", ws + "/.git");
    auto r = attempt(c.script + " && echo ESCAPED; true");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_refused(r);
    EXPECT_FALSE(path_exists(ws + "/.git/hooks/pre-commit"));
    EXPECT_EQ(read_file(ws + "/.git/config"), "[core]\n");
    if (c.symlinked_git) {
      EXPECT_EQ(std::filesystem::read_symlink(ws + "/.git").string(), "realgit");
    }
    expect_refused_by_corral();
  }
  // Absent write_deny paths reached through ".." after a symlink, once with a decoy symlink at
  // the lexical name.
  for (const std::string& script :
       {"mkdir -p .git/a/b && ln -s " + ws + "/.git/a/b /tmp/L && echo x > /tmp/L/../../config",
        "mkdir -p .git/a/b && ln -s " + ws + "/.git/a/b /tmp/L && mkdir /tmp/L/../../hooks",
        "mkdir -p .git/a t && ln -s " + ws + "/.git/a t/L && ln -s " + ws +
            "/harmless t/config && echo x > t/L/../config"}) {
    SCOPED_TRACE(script);
    attempt_absent_deny_write(script);
    EXPECT_FALSE(path_exists(ws + "/.git/config"));
    EXPECT_FALSE(path_exists(ws + "/.git/hooks"));
  }
  // Ordinary work in the repository still goes.
  clear_workspace();
  std::filesystem::create_directories(ws + "/.git/hooks");
  auto ok = attempt("mkdir -p src && echo a > src/a && mv src/a src/b && rm src/b && rmdir src && "
                    "echo fine");
  EXPECT_EQ(ok.out, "fine\n") << ok.err;
}

// Less usual ways to the same write_deny paths, each found by a review: a cwd deeper than
// PATH_MAX (corral cannot read it: it refuses), ".." straight after /proc/self/cwd, a hard
// link of an unnamed (O_TMPFILE) file behind a decoy of its "(deleted)" name, two names of
// one text, openat2 with RESOLVE_IN_ROOT, and a .git file pointing git elsewhere.
TEST_F(Escape, ReachGitConfigByLessUsualPaths) {
  const std::string ws = ws_.path();
  const std::vector<std::pair<bool, std::string>> cases = {
      {true,
       "python3 -c 'import os\n"
       "d = \"a\" * 200\n"
       "for i in range(22): os.mkdir(d); os.chdir(d)\n"
       "os.rename(\"/\".join([\"..\"] * 22) + \"/.git\", \"/\".join([\"..\"] * 22) + \"/g2\")'"},
      {true, "mkdir -p sub && cd sub && mv /proc/self/cwd/../.git /proc/self/cwd/../g2"},
      {false, "mkdir -p .git/sub && cd .git/sub && sh -c 'echo x > /proc/$$/cwd/../config'"},
      {false,
       "python3 -c 'import os\n"
       "fd = os.open(\".\", os.O_TMPFILE | os.O_WRONLY, 0o644); os.write(fd, b\"evil\")\n"
       "name = os.readlink(\"/proc/self/fd/%d\" % fd)\n"
       "os.symlink(\"/etc/hostname\", name)\n"
       "os.link(\"/proc/self/fd/%d\" % fd, \".bashrc\", follow_symlinks=True)'"},
      {false, "mkdir x sub && echo evil > sub/.bashrc && ln -s " + ws +
                  "/x sub/m && ln sub/.bashrc sub/m/../.bashrc"},
      {false,
       "mkdir .git && python3 -c 'import ctypes, os, struct\n"
       "how = struct.pack(\"QQQ\", os.O_CREAT | os.O_WRONLY, 0o644, 0x10)\n"
       "d = os.open(\".git\", os.O_PATH)\n"
       "fd = ctypes.CDLL(None).syscall(437, d, b\"/config\", how, len(how))\n"
       "raise SystemExit(fd < 0)'"},
      {false, "echo \"gitdir: .gitc\" > .git"},
      // A magic link reached any other way than at the front, then "..".
      {false, "mkdir sub && cd sub && sh -c 'echo evil > /dev/../proc/$$/cwd/../.bashrc'"},
      {false, "mkdir -p .git/x && cd .git/x && sh -c 'echo x > /proc/self/../$$/cwd/../config'"},
      {true, "mkdir sub && cd sub && sh -c 'mv /tmp/../proc/$$/cwd/../.git ../g2'"},
      {true, "mkdir sub && cd sub && sh -c 'ln -s /proc/$$/cwd L && mv L/../.git ../g2'"},
      // A symlink to /proc/self/cwd on the way, then a final symlink to the protected file
      // (corral cannot follow the caller's magic links itself: it refuses).
      {false, "ln -s /proc/self/cwd m && mkdir .git && ln -s .git/config cfgl && echo x > m/cfgl"},
      {true, "ln -s /proc/self/cwd m && ln -s " + ws + "/.git/commondir s2 && ln -s m/s2 s && "
                 "echo " + ws + "/evil > s"},
      // Threads with cwds of their own (unshare(CLONE_FS)): /proc/self is the thread group's
      // leader, /proc/self/task/T a given thread, whichever thread asks.
      {false,
       "mkdir .git && python3 -c 'import ctypes, os, threading\n"
       "libc = ctypes.CDLL(None, use_errno=True); os.chdir(\".git\"); r = []\n"
       "def t():\n"
       "    libc.unshare(0x200); os.chdir(\"..\")\n"
       "    try: r.append(os.open(\"/proc/self/cwd/config\", os.O_CREAT | os.O_WRONLY, 0o644))\n"
       "    except OSError: r.append(-1)\n"
       "h = threading.Thread(target=t); h.start(); h.join(); raise SystemExit(r[0] < 0)'"},
      {false,
       "mkdir .git && python3 -c 'import ctypes, os, threading\n"
       "libc = ctypes.CDLL(None, use_errno=True); ready = threading.Event(); done = threading.Event(); tid = []\n"
       "def t():\n"
       "    libc.unshare(0x200); os.chdir(\".git\"); tid.append(threading.get_native_id())\n"
       "    ready.set(); done.wait()\n"
       "h = threading.Thread(target=t); h.start(); ready.wait()\n"
       "try: fd = os.open(\"/proc/self/task/%d/cwd/config\" % tid[0], os.O_CREAT | os.O_WRONLY, 0o644)\n"
       "except OSError: fd = -1\n"
       "done.set(); h.join(); raise SystemExit(fd < 0)'"},
  };
  for (const auto& [repo, script] : cases) {
    SCOPED_TRACE(script);
    clear_workspace();
    if (repo) {
      std::filesystem::create_directories(ws + "/.git/hooks");
      write_file(ws + "/.git/config", "[core]\n");
    }
    auto r = attempt(script + " && echo ESCAPED; true");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_refused(r);
    EXPECT_FALSE(path_exists(ws + "/.bashrc"));
    EXPECT_FALSE(path_exists(ws + "/g2"));
    EXPECT_FALSE(path_exists(ws + "/.git/commondir"));
    if (repo) {
      EXPECT_EQ(read_file(ws + "/.git/config"), "[core]\n");
    } else {
      EXPECT_FALSE(path_exists(ws + "/.git/config"));
      EXPECT_FALSE(std::filesystem::is_regular_file(ws + "/.git"));
    }
    expect_refused_by_corral();
  }
  // An unnamed file in the workspace is ordinary work.
  clear_workspace();
  auto ok = attempt("python3 -c 'import os\n"
                    "fd = os.open(\".\", os.O_TMPFILE | os.O_WRONLY, 0o644)\n"
                    "print(os.write(fd, b\"ok\"))'");
  EXPECT_EQ(ok.out, "2\n") << ok.err;
}

// corral's state directory (sockets and state of persistent sandboxes) is masked in every
// sandbox; a sandbox whose workspace holds it must not carry the mask away by moving a parent,
// nor create the directory before corral does.
TEST_F(Escape, MoveOrCreateCorralsStateDirectory) {
  const std::string ws = ws_.path();
  auto run_with_home = [&](const std::string& home, const std::string& script) {
    CliOptions o{ws};
    std::map<std::string, std::string> env{{"PATH", "/usr/bin:/bin"}, {"HOME", ws},
                                           {"CORRAL_HOME", home}};
    o.env = env;
    return run_corral({"run", "--workspace", ws, "--record", record_path(), "--", "/bin/sh",
                       "-c", script + " && echo ESCAPED; true"},
                      o);
  };
  std::filesystem::create_directories(ws + "/sub/state");
  write_file(ws + "/sub/state/marker", "corral");
  auto moved = run_with_home(ws + "/sub/state", "mv sub sub2");
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  expect_refused(moved);
  EXPECT_EQ(read_file(ws + "/sub/state/marker"), "corral");
  expect_recorded("filesystem", ws + "/sub");

  for (const char* script :
       {"mkdir d && mv /dev/stdin/../sub sub2 < d",
        "mkdir d && cd d && sh -c 'mv /tmp/../proc/$$/cwd/../sub ../sub2'"}) {
    SCOPED_TRACE(script);
    auto r = run_with_home(ws + "/sub/state", script);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_refused(r);
    EXPECT_EQ(read_file(ws + "/sub/state/marker"), "corral");
    std::filesystem::remove_all(ws + "/d");
  }

  auto created = run_with_home(ws + "/newstate/.", "mkdir -p newstate/sandboxes");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  expect_refused(created);
  EXPECT_FALSE(path_exists(ws + "/newstate"));
  expect_recorded("filesystem", ws + "/newstate");
}

TEST_F(Escape, MakeADeviceNode) {
  auto r = attempt("mknod /tmp/sda b 8 0 && echo ESCAPED; mknod /tmp/mem c 1 1 && echo ESCAPED");
  expect_refused(r);
}

TEST_F(Escape, OverwriteTheRuntimeBinary) {
  // runc's CVE-2019-5736: reach the runtime's binary through /proc and write it.
  std::string bin = corral_binary();
  auto before = read_file(bin).size();
  auto r = attempt("echo evil > /proc/1/exe && echo ESCAPED; cat /proc/1/exe > /dev/null; "
                   "echo evil >> " + bin + " && echo ESCAPED");
  expect_refused(r);
  EXPECT_EQ(read_file(bin).size(), before);
  // A binary under /tmp (the unprivileged lane's copy) is not even visible inside: the sandbox
  // has its own /tmp, so that write fails with ENOENT and is no violation.
  if (bin.rfind("/tmp/", 0) != 0) expect_recorded("filesystem", bin);
}

TEST_F(Escape, WriteKernelTunables) {
  auto r = attempt("echo 1 > /proc/sys/kernel/sysrq && echo ESCAPED; echo b > /proc/sysrq-trigger && echo ESCAPED; "
                   "echo 1 > /sys/kernel/profiling && echo ESCAPED");
  expect_refused(r);
  expect_recorded("filesystem", "/sys/kernel/profiling");
}

// --- reading secrets ---

TEST_F(Escape, ReadDeniedFileDirectly) {
  expect_read_refused_both_ways("cat " + outside_.path() + "/dir/secret");
}

TEST_F(Escape, ReadDeniedFileThroughSymlink) {
  expect_read_refused_both_ways("ln -sfn " + outside_.path() + "/dir/secret s && cat s");
}

TEST_F(Escape, ReadDeniedFileThroughASymlinkedParent) {
  expect_read_refused_both_ways("ln -sfn " + outside_.path() + "/dir d && cat d/secret");
}

TEST_F(Escape, ReadDeniedFileThroughDotDotAfterASymlink) {
  // The kernel takes ".." from where the link led: /tmp/l/../dir/secret is outside_/dir/secret,
  // though it reads lexically as /tmp/dir/secret.
  expect_read_refused_both_ways("ln -s " + outside_.path() + "/dir /tmp/l; cat /tmp/l/../dir/secret; "
                                "cat /tmp/l/../dir/../dir/secret");
}

// The other way round: a name that reads lexically as a denied file but leads elsewhere is
// an ordinary read, and no violation.
TEST_F(Escape, AReadThatOnlyLooksLikeTheDeniedFileIsNotRecorded) {
  const std::string ws = ws_.path();
  std::filesystem::create_directories(ws + "/other/sub");
  write_file(ws + "/other/secret", "notsecret");
  write_file(ws + "/secret", "TOPSECRET");
  std::filesystem::create_directory_symlink(ws + "/other/sub", ws + "/lnk");
  auto r = attempt("cat lnk/../secret", {"--deny-read", ws + "/secret", "--watch-reads"});
  EXPECT_EQ(r.out, "notsecret") << r.err;
  const auto rec = record();
  for (const auto& v : rec["violations"]) ADD_FAILURE() << v.dump();
}

TEST_F(Escape, ReadDeniedFileThroughHardLink) {
  expect_refused(attempt("ln " + outside_.path() + "/dir/secret h; cat h"));
  expect_reads_not_observed();
}

TEST_F(Escape, ReadDeniedFileThroughProcRoot) {
  expect_read_refused_both_ways("cat /proc/self/root" + outside_.path() +
                                "/dir/secret; cat /proc/1/root" + outside_.path() + "/dir/secret");
}

TEST_F(Escape, ReadDeniedFileByUnmountingTheMask) {
  expect_read_refused_both_ways("umount " + outside_.path() + "/dir/secret; umount -l " +
                                outside_.path() + "/dir/secret; cat " + outside_.path() +
                                "/dir/secret");
  expect_recorded("seccomp", "umount2");
}

TEST_F(Escape, ReadDeniedFileFromANestedMountNamespace) {
  expect_refused(attempt("unshare -Urm sh -c 'umount " + outside_.path() + "/dir/secret; cat " +
                         outside_.path() + "/dir/secret'"));
  expect_reads_not_observed();
}

TEST_F(Escape, ReadShadowEveryWay) {
  auto r = attempt("cat /etc/shadow; cat /proc/self/root/etc/shadow; cp /etc/shadow x && cat x; "
                   "dd if=/etc/shadow 2>/dev/null | head -c 5");
  EXPECT_EQ(r.out.find("root:"), std::string::npos) << r.out;
}

TEST_F(Escape, RawBlockDevicesAreAbsent) {
  auto r = attempt("ls /dev/sd* /dev/vd* /dev/nvme* /dev/xvd* /dev/mem /dev/kmem /dev/port 2>/dev/null && echo ESCAPED");
  expect_refused(r);
}

TEST_F(Escape, OpenByHandle) {
  // "shocker": open_by_handle_at needs CAP_DAC_READ_SEARCH, which nothing inside holds.
  auto r = attempt("/usr/bin/python3 - <<'EOF'\n"
                   "import ctypes, os\n"
                   "libc = ctypes.CDLL(None, use_errno=True)\n"
                   "buf = ctypes.create_string_buffer(8 + 128)\n"
                   "ctypes.memmove(buf, (128).to_bytes(4, 'little'), 4)\n"
                   "mnt = ctypes.c_int()\n"
                   "libc.name_to_handle_at(-100, b'/etc', buf, ctypes.byref(mnt), 0)\n"
                   "fd = libc.open_by_handle_at(os.open('/', os.O_RDONLY), buf, 0)\n"
                   "print('ESCAPED' if fd >= 0 else 'refused', ctypes.get_errno())\n"
                   "EOF");
  expect_refused(r);
  expect_recorded("seccomp", "open_by_handle_at");
}

TEST_F(Escape, LeakedFileDescriptors) {
  // Nothing of corral's may be open in the command: only stdio.
  auto r = attempt("ls /proc/self/fd | sort -n | tr '\\n' ' '");
  EXPECT_EQ(r.out, "0 1 2 3 ") << r.out;  // 3 is ls's own directory handle
}

TEST_F(Escape, EnvironmentSecrets) {
  CliOptions opts{ws_.path()};
  opts.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}, {"GITHUB_TOKEN", "ghp_TOPSECRET"},
                                                {"AWS_SECRET_ACCESS_KEY", "TOPSECRET"}};
  auto r = run_corral({"run", "--workspace", ws_.path(), "--", "/bin/sh", "-c",
                       "env; cat /proc/1/environ | tr '\\0' '\\n'"}, opts);
  expect_refused(r);
}

// --- processes and privileges ---

TEST_F(Escape, KillAHostProcess) {
  pid_t victim = fork();
  if (victim == 0) {
    pause();
    _exit(0);
  }
  auto r = attempt("kill -9 " + std::to_string(victim) + " && echo ESCAPED; kill -9 -1; echo done");
  expect_refused(r);
  int status;
  EXPECT_EQ(waitpid(victim, &status, WNOHANG), 0) << "the host process died";
  kill(victim, SIGKILL);
  waitpid(victim, &status, 0);
}

TEST_F(Escape, PtraceTheInit) {
  auto r = attempt("/usr/bin/python3 -c \"import ctypes; l=ctypes.CDLL(None, use_errno=True); "
                   "print('ESCAPED' if l.ptrace(16, 1, 0, 0) == 0 else 'refused')\"");
  expect_refused(r);
  expect_recorded("seccomp", "ptrace");
}

TEST_F(Escape, SetuidBinariesGiveNothing) {
  auto r = attempt("for b in su sudo passwd mount newgrp; do p=$(command -v $b) || continue; "
                   "test -u $p || continue; $p --version >/dev/null 2>&1; done; "
                   "grep -E '^(Uid|CapEff)' /proc/self/status; "
                   "/usr/bin/python3 -c 'import os; os.setuid(0); print(\"ESCAPED\")' 2>/dev/null || true");
  EXPECT_NE(r.out.find("CapEff:\t0000000000000000"), std::string::npos) << r.out;
  if (getuid() != 0) expect_refused(r);
}

TEST_F(Escape, ChrootBackOut) {
  expect_refused(attempt("mkdir -p /tmp/c && chroot /tmp/c /bin/true && echo ESCAPED; "
                         "/usr/sbin/chroot / /bin/true && echo ESCAPED"));
}

TEST_F(Escape, ChangeHostnameOrClock) {
  std::string host_before = read_file("/proc/sys/kernel/hostname");
  auto r = attempt("hostname evil && echo ESCAPED; date -s '2001-01-01' >/dev/null && echo ESCAPED");
  expect_refused(r);
  expect_recorded("seccomp", "clock_settime");
  EXPECT_EQ(read_file("/proc/sys/kernel/hostname"), host_before);
}

TEST_F(Escape, LoadAKernelModule) {
  expect_refused(attempt("modprobe dummy 2>/dev/null && echo ESCAPED; "
                         "/usr/bin/python3 -c \"import ctypes; l=ctypes.CDLL(None); "
                         "print('ESCAPED' if l.syscall(313, 0, b'', 0) == 0 else 'refused')\""));
  expect_recorded("seccomp", "finit_module");
}

TEST_F(Escape, CgroupReleaseAgent) {
  // CVE-2022-0492 needs a cgroup v1 mount with release_agent: mounting is refused.
  expect_refused(attempt("mkdir -p /tmp/cg && mount -t cgroup -o memory cgroup /tmp/cg && echo ESCAPED; "
                         "echo /evil > /sys/fs/cgroup/memory/release_agent && echo ESCAPED"));
  expect_recorded("seccomp", "mount");
}

// --- network and IPC ---

TEST_F(Escape, ReachAHostLoopbackServer) {
  int srv = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(srv, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(srv, 4), 0);
  socklen_t len = sizeof addr;
  getsockname(srv, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  auto r = attempt("echo hi > /dev/tcp/127.0.0.1/" + std::to_string(port) + " && echo ESCAPED");
  expect_refused(r);
  close(srv);
}

TEST_F(Escape, ReachAHostAbstractSocket) {
  int srv = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string name = "corral-escape-" + std::to_string(getpid());
  std::memcpy(addr.sun_path + 1, name.data(), name.size());
  socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  ASSERT_EQ(bind(srv, reinterpret_cast<sockaddr*>(&addr), len), 0);
  ASSERT_EQ(listen(srv, 4), 0);
  auto r = attempt("/usr/bin/python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); "
                   "s.connect('\\0" + name + "'); print('ESCAPED')\"");
  expect_refused(r);
  close(srv);
}

TEST_F(Escape, SeeHostSysVIpc) {
  // A host shared-memory segment is invisible in the sandbox's IPC namespace.
  std::string out;
  FILE* p = popen("ipcmk -M 4096 2>/dev/null", "r");
  char buf[256] = {};
  if (p) {
    if (fgets(buf, sizeof buf, p)) out = buf;
    pclose(p);
  }
  auto id_pos = out.find_last_of(' ');
  ASSERT_NE(id_pos, std::string::npos) << "ipcmk failed: " << out;
  std::string id = out.substr(id_pos + 1);
  id.erase(id.find_last_not_of("\n") + 1);
  auto r = attempt("ipcs -m | grep -w " + id + " && echo ESCAPED");
  expect_refused(r);
  std::string rm = "ipcrm -m " + id;
  EXPECT_EQ(system(rm.c_str()), 0);
}

TEST_F(Escape, HostDevShmIsNotShared) {
  std::string marker = "/dev/shm/corral-escape-" + std::to_string(getpid());
  write_file(marker, "host");
  auto r = attempt("cat " + marker + " && echo ESCAPED; echo x > /dev/shm/inside-" + std::to_string(getpid()));
  expect_refused(r);
  EXPECT_FALSE(path_exists("/dev/shm/inside-" + std::to_string(getpid())));
  unlink(marker.c_str());
}

// --- outliving the sandbox ---

class Outlive : public Escape, public ::testing::WithParamInterface<const char*> {};

TEST_P(Outlive, NothingSurvivesTheRun) {
  // Each way of leaving a process behind; the marker is assembled inside, so only the
  // sandboxed process carries it.
  std::string tail = std::to_string(getpid()) + "-" + GetParam();
  std::string marker = "corral-survivor-" + tail;
  std::string sleeper = "exec -a corral-survivor-" + tail + " sleep 300";
  std::string how = GetParam();
  std::string script;
  if (how == std::string("setsid")) script = "setsid bash -c '" + sleeper + "' &";
  if (how == std::string("double-fork")) script = "( ( bash -c '" + sleeper + "' & ) & )";
  if (how == std::string("nohup")) script = "nohup bash -c '" + sleeper + "' >/dev/null 2>&1 &";
  if (how == std::string("disown")) script = "bash -c '" + sleeper + "' & disown";
  auto r = attempt(script + "\nsleep 0.2; echo started");
  EXPECT_EQ(r.out, "started\n") << r.err;
  EXPECT_FALSE(process_with_arg_exists(marker)) << how << " left a process running";
  // And with a time limit that kills the run.
  auto t = attempt(script + "\nsleep 100", {"--timeout", "300ms"});
  EXPECT_EQ(t.exit_code, 124);
  EXPECT_FALSE(process_with_arg_exists(marker)) << how << " survived the time limit";
}

INSTANTIATE_TEST_SUITE_P(Ways, Outlive, ::testing::Values("setsid", "double-fork", "nohup", "disown"));

}  // namespace
}  // namespace corral::test
