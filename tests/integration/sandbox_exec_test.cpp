// exec into a persistent sandbox through the real binary: exit statuses, concurrency, a real
// terminal, time limits, background processes with their logs, and a vanished client.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "integration/sandbox_fixture.hpp"

namespace corral::test {
namespace {

using SandboxExec = SandboxTest;

bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

TEST_F(SandboxExec, ExitStatusesAreRunsContract) {
  std::string name = make("status");
  EXPECT_EQ(corral({"exec", name, "--", "sh", "-c", "exit 42"}).exit_code, 42);
  EXPECT_EQ(corral({"exec", name, "--", "sh", "-c", "kill -TERM $$"}).exit_code, 128 + SIGTERM);
  auto r = corral({"exec", name, "--", "no-such-command-xyz"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_TRUE(contains(r.err, "command not found")) << r.err;
  EXPECT_EQ(corral({"exec", name, "--", "/etc/passwd"}).exit_code, 126);
  r = corral({"exec", name, "--timeout", "200ms", "--", "sh", "-c", "sleep 30 & sleep 30"});
  EXPECT_EQ(r.exit_code, 124);
  // --cwd picks the directory; without it, the workspace (the caller's cwd is outside here).
  EXPECT_EQ(corral({"exec", name, "--cwd", "/tmp", "--", "pwd"}).out, "/tmp\n");
  EXPECT_EQ(corral({"exec", name, "--", "pwd"}, {.cwd = "/"}).out, ws_.path() + "\n");
  // stdin is /dev/null unless -i.
  r = corral({"exec", name, "--", "cat"}, {.stdin_data = "ignored"});
  EXPECT_EQ(r.out, "");
  r = corral({"exec", name, "-i", "--", "cat"}, {.stdin_data = "hello stdin"});
  EXPECT_EQ(r.out, "hello stdin");
  // The environment is the policy's, plus --env; HOME is the volume's mount point.
  env_["SECRET_X"] = "leaked";
  r = corral({"exec", name, "--env", "GREETING=hi", "--", "sh", "-c", "echo $GREETING; echo ${SECRET_X:-unset}"});
  EXPECT_EQ(r.out, "hi\nunset\n") << r.err;
}

TEST_F(SandboxExec, RunsUnderTheSameRestrictionsAsRun) {
  std::string name = make("walls");
  // Landlock and seccomp are in force in every exec: the host root is read-only, mount is
  // refused, and the sandbox's processes cannot see the host's.
  auto r = corral({"exec", name, "--", "sh", "-c",
                   "touch /etc/corral-x 2>/dev/null && echo wrote; "
                   "unshare -r true 2>/dev/null && echo unshared; "
                   "ls /proc | grep -c '^[0-9]' "});
  EXPECT_FALSE(contains(r.out, "wrote"));
  EXPECT_FALSE(contains(r.out, "unshared"));
  // The supervisor, the sh, the ls and the grep at most.
  EXPECT_LE(std::stoi(r.out.empty() ? "99" : r.out), 5) << r.out;
}

// The supervisor keeps CAP_SYS_PTRACE to read the paths of commands that made themselves
// non-dumpable; the commands hold no capability at all.
TEST_F(SandboxExec, NonDumpableCommandsAreCheckedAndHoldNoCapabilities) {
  std::string name = make("nodump");
  auto r = corral({"exec", name, "--", "python3", "-c",
                   "import ctypes, os\n"
                   "assert ctypes.CDLL(None).prctl(4, 0) == 0\n"  // PR_SET_DUMPABLE
                   "try:\n    os.makedirs('.git/hooks'); print('ESCAPED')\n"
                   "except OSError as e: print(e.errno)\n"
                   "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('Cap')])"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "30\n['0000000000000000', '0000000000000000', '0000000000000000', "
                   "'0000000000000000', '0000000000000000']\n");  // EROFS; Inh Prm Eff Bnd Amb
  EXPECT_FALSE(path_exists(ws_.path() + "/.git/hooks"));
  EXPECT_TRUE(contains(r.err, "filesystem " + ws_.path() + "/.git/hooks")) << r.err;
}

// Under --watch-reads every open is trapped; one whose path corral cannot follow (as an
// unprivileged user, a non-dumpable caller's dirfd) is let through when it only reads, while a
// write there is refused (an absent write_deny path might be its target).
TEST_F(SandboxExec, AReadCorralCannotFollowIsNeverRefused) {
  write_file(ws_.file("data.txt"), "readable\n");
  std::string name = make("blindreads", {"--watch-reads"});
  auto r = corral({"exec", name, "--", "python3", "-c",
                   "import ctypes, os\n"
                   "assert ctypes.CDLL(None).prctl(4, 0) == 0\n"  // PR_SET_DUMPABLE
                   "d = os.open('.', os.O_RDONLY)\n"
                   "print(open(os.open('data.txt', os.O_RDONLY, dir_fd=d)).read(), end='')\n"
                   "try:\n    os.open('.bashrc', os.O_CREAT | os.O_WRONLY, dir_fd=d); print('ESCAPED')\n"
                   "except OSError as e: print(e.errno)"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "readable\n30\n") << r.err;
  EXPECT_FALSE(path_exists(ws_.file(".bashrc")));
}

// A write_deny file that appears after the sandbox started (git init on the host) has no
// mount over it: the monitor guards it by name, and a second name for it (a hard link in the
// same directory) must be refused too.
TEST_F(SandboxExec, AWriteDenyFileMadeLaterGetsNoSecondName) {
  std::string name = make("laterdeny");
  std::filesystem::create_directories(ws_.path() + "/.git");
  write_file(ws_.path() + "/.git/config", "[core]\n");
  auto r = corral({"exec", name, "--", "sh", "-c",
                   "ln .git/config .git/cfg2 && echo '[core] hooksPath=/evil' >> .git/cfg2 && "
                   "echo ESCAPED; echo x >> .git/config && echo ESCAPED; true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(contains(r.out, "ESCAPED")) << r.out;
  EXPECT_EQ(read_file(ws_.path() + "/.git/config"), "[core]\n");
  EXPECT_FALSE(std::filesystem::exists(ws_.path() + "/.git/cfg2"));
  EXPECT_TRUE(contains(r.err, "filesystem")) << r.err;
}

TEST_F(SandboxExec, RefusalsOfEachExecAreReportedAndLogged) {
  std::string name = make("seen");
  // A refused write, a refused syscall, and a write under an absent write_deny path.
  auto r = corral({"exec", name, "--", "sh", "-c",
                   "echo x > /etc/corral-x; unshare -U true; mkdir -p .git/hooks; exit 3"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(contains(r.err, "corral: 3 violations: filesystem /etc/corral-x, filesystem " +
                                  ws_.path() + "/.git/hooks, seccomp unshare"))
      << r.err;
  // --quiet: no summary; a background job's refusals go to the log with its id.
  r = corral({"exec", "-q", name, "--", "sh", "-c", "touch /usr/corral-q"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(contains(r.err, "violation")) << r.err;
  r = corral({"exec", "-d", name, "--", "sh", "-c", "touch /usr/corral-bg"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string job = r.out.substr(0, r.out.find('\n'));

  std::vector<nlohmann::json> lines;
  for (int i = 0; i < 100 && lines.size() < 5; ++i) {
    lines.clear();
    std::ifstream in(sandbox_dir(name) + "/logs/violations.jsonl");
    for (std::string l; std::getline(in, l);) lines.push_back(nlohmann::json::parse(l));
    if (lines.size() < 5) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0]["subject"], "/etc/corral-x");
  EXPECT_EQ(lines[1]["kind"], "seccomp");
  EXPECT_EQ(lines[3]["subject"], "/usr/corral-q");
  EXPECT_EQ(lines[4]["subject"], "/usr/corral-bg");
  EXPECT_EQ(lines[4]["job"], job);
  EXPECT_FALSE(lines[3].contains("job"));
  EXPECT_EQ(inspect(name)["violations"], 5);
}

TEST_F(SandboxExec, WatchReadsRecordsReadsOfDeniedPathsPerExec) {
  TempDir secrets;
  write_file(secrets.file("token"), "TOPSECRET");
  std::string name = make("reads", {"--deny-read", secrets.path(), "--watch-reads"});
  auto r = corral({"exec", name, "--", "sh", "-c",
                   "cat " + secrets.file("token") + "; ln -s " + secrets.path() +
                       " s; cat s/token; cat /etc/hostname >/dev/null; exit 0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(contains(r.out, "TOPSECRET"));
  // (The summary lists them sorted by path.)
  EXPECT_TRUE(contains(r.err, "corral: 2 violations: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "filesystem " + secrets.file("token"))) << r.err;
  EXPECT_TRUE(contains(r.err, "filesystem " + ws_.file("s/token"))) << r.err;
  auto j = inspect(name);
  EXPECT_EQ(j["violations"], 2);
  EXPECT_TRUE(contains(j["not_observed"].dump(), "opens of read_deny paths are recorded"))
      << j["not_observed"].dump();
}

TEST_F(SandboxExec, ARunSandboxCannotReachAPersistentSandboxsSocket) {
  // corral's state directory is hidden in every sandbox: its supervisor.sock files would take
  // commands from whoever can connect. Outside /tmp (which is private anyway), so the hiding
  // itself is what is tested.
  char tmpl[] = "/var/tmp/corral-state-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string root = tmpl;
  env_["CORRAL_HOME"] = root;
  std::string name = make("target");
  std::string sock = root + "/sandboxes/" + name + "/supervisor.sock";
  ASSERT_TRUE(path_exists(sock));
  TempDir ws;
  auto r = corral({"run", "--workspace", ws.path(), "--", "/usr/bin/python3", "-c",
                   "import socket\n"
                   "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
                   "try:\n"
                   "    s.connect('" + sock + "'); print('ESCAPED')\n"
                   "except OSError as e:\n"
                   "    print('refused', e.errno)\n"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "refused 13\n") << r.err;  // EACCES: the state dir is a mode-000 mask
  // Inside the persistent sandbox itself, too.
  r = corral({"exec", name, "--", "sh", "-c", "ls " + root + "/sandboxes || echo hidden"});
  EXPECT_EQ(r.out, "hidden\n") << r.err;
  corral({"rm", "-f", name});
  std::filesystem::remove_all(root);
}

TEST_F(SandboxExec, AHostileFileNameDoesNotHurtTheSupervisor) {
  std::string name = make("hostile");
  auto r = corral({"exec", name, "--", "sh", "-c", "touch \"$(printf '/usr/bad\\377name')\""});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "filesystem /usr/bad\\xFFname")) << r.err;
  r = corral({"exec", "-d", name, "--", "sh", "-c", "true", "\xff"});  // in the job's record
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = corral({"exec", name, "--", "echo", "alive"});
  EXPECT_EQ(r.out, "alive\n") << r.err;
}

TEST_F(SandboxExec, AFloodOfRefusalsIsCappedPerExec) {
  std::string name = make("flood");
  auto r = corral({"exec", name, "--", "/usr/bin/python3", "-c",
                   "import os\n"
                   "for i in range(1200):\n"
                   "    try: os.open('/etc/flood', os.O_WRONLY | os.O_CREAT)\n"
                   "    except OSError: pass\n"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "corral: 1001 violations: filesystem /etc/flood x1000, truncated "
                              "violations"))
      << r.err;
  std::ifstream in(sandbox_dir(name) + "/logs/violations.jsonl");
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 1001u);
  EXPECT_TRUE(contains(lines.back(), "200 more")) << lines.back();
}

TEST_F(SandboxExec, FiftyConcurrentExecsEachGetTheirOwnOutput) {
  std::string name = make("many");
  constexpr int kExecs = 50;
  std::vector<CliResult> results(kExecs);
  std::vector<std::thread> threads;
  for (int i = 0; i < kExecs; ++i)
    threads.emplace_back([&, i] {
      std::string n = std::to_string(i);
      results[i] = corral({"exec", name, "--", "sh", "-c",
                           "for k in 1 2 3; do echo out-" + n + "; echo err-" + n + " >&2; done; exit " +
                               std::to_string(i % 7)});
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < kExecs; ++i) {
    std::string n = std::to_string(i);
    EXPECT_EQ(results[i].exit_code, i % 7) << results[i].err;
    EXPECT_EQ(results[i].out, "out-" + n + "\nout-" + n + "\nout-" + n + "\n");
    EXPECT_EQ(results[i].err, "err-" + n + "\nerr-" + n + "\nerr-" + n + "\n");
  }
}

TEST_F(SandboxExec, TtyGivesARealTerminal) {
  std::string name = make("tty");
  auto r = corral({"exec", name, "-t", "--", "sh", "-c", "tty; stty size; test -t 0 && echo stdin-tty"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "/dev/pts/")) << r.out;
  EXPECT_TRUE(contains(r.out, "24 80")) << r.out;
  EXPECT_TRUE(contains(r.out, "stdin-tty")) << r.out;
  EXPECT_EQ(corral({"exec", name, "-t", "--", "sh", "-c", "exit 5"}).exit_code, 5);
  // shell: a login shell on a terminal, reading commands from it.
  r = corral({"shell", name}, {.stdin_data = "tty\nexit 3\n"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(contains(r.out, "/dev/pts/")) << r.out;
}

TEST_F(SandboxExec, BackgroundServerOutlivesItsClientAndKeepsItsLogs) {
  std::string name = make("server");
  // A server that answers each connection on a Unix socket in the workspace and logs it.
  write_file(ws_.file("server.py"),
             "import socket, os, sys\n"
             "s = socket.socket(socket.AF_UNIX)\n"
             "s.bind('srv.sock'); s.listen(8)\n"
             "print('listening', flush=True)\n"
             "n = 0\n"
             "while True:\n"
             "    c, _ = s.accept(); n += 1\n"
             "    c.sendall(b'pong %d\\n' % n); c.close()\n"
             "    print('served', n, flush=True); print('err', n, file=sys.stderr, flush=True)\n");
  write_file(ws_.file("client.py"),
             "import socket, time\n"
             "for _ in range(500):\n"
             "    try:\n"
             "        s = socket.socket(socket.AF_UNIX); s.connect('srv.sock'); break\n"
             "    except OSError: time.sleep(0.01)\n"
             "print(s.recv(100).decode(), end='')\n");
  auto started = corral({"exec", name, "-d", "--", "python3", "server.py"});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  std::string id = started.out.substr(0, started.out.find('\n'));
  ASSERT_EQ(id.size(), 8u) << started.out;
  // The client that started it has exited; the server still answers.
  EXPECT_EQ(corral({"exec", name, "--", "python3", "client.py"}).out, "pong 1\n");
  EXPECT_EQ(corral({"exec", name, "--", "python3", "client.py"}).out, "pong 2\n");
  auto ps = nlohmann::json::parse(corral({"ps", name, "--json"}).out);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0]["id"], id);
  EXPECT_EQ(ps[0]["state"], "running");
  // logs -f follows until the process ends: kill it from another client meanwhile.
  std::thread killer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(corral({"kill", name, id}).exit_code, 0);
  });
  auto logs = corral({"logs", name, id, "-f"});
  killer.join();
  EXPECT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_EQ(logs.out, "listening\nserved 1\nserved 2\n");
  EXPECT_EQ(logs.err, "err 1\nerr 2\n");
  ps = nlohmann::json::parse(corral({"ps", name, "--json"}).out);
  EXPECT_EQ(ps[0]["state"], "exited");
  EXPECT_EQ(ps[0]["exit_code"], 128 + SIGKILL);
}

TEST_F(SandboxExec, ExecsReachEachOthersProcesses) {
  // Each exec is its own Landlock domain for the filesystem, but the signal scope is shared:
  // an agent can stop the server it started in an earlier exec.
  std::string name = make("signals");
  auto started = corral({"exec", name, "-d", "--", "sleep", "1000"});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  auto ps = nlohmann::json::parse(corral({"ps", name, "--json"}).out);
  ASSERT_EQ(ps.size(), 1u);
  auto r = corral({"exec", name, "--", "kill", std::to_string(ps[0]["pid"].get<int>())});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (int i = 0; i < 300; ++i) {
    ps = nlohmann::json::parse(corral({"ps", name, "--json"}).out);
    if (ps[0]["state"] != "running") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(ps[0]["exit_code"], 128 + SIGTERM);
  // The supervisor is pid 1 inside: a command's SIGKILL does not reach it.
  corral({"exec", name, "--", "sh", "-c", "kill -KILL 1"});
  EXPECT_EQ(corral({"exec", name, "--", "true"}).exit_code, 0);
  EXPECT_EQ(state_of(name), "running");
}

TEST_F(SandboxExec, KillReachesTheWholeTree) {
  std::string name = make("tree");
  auto started = corral({"exec", name, "-d", "--", "sh", "-c",
                         "(setsid sleep 1000 &) ; sleep 1000 & echo $! > child.pid; wait"});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  std::string id = started.out.substr(0, 8);
  std::vector<int> before;
  for (int i = 0; i < 300 && before.size() < 4; ++i) {
    before = inspect(name)["pids"].get<std::vector<int>>();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_GE(before.size(), 4u);  // supervisor, sh, sleep, the setsid'd sleep
  ASSERT_EQ(corral({"kill", name, id}).exit_code, 0);
  std::vector<int> after;
  for (int i = 0; i < 300; ++i) {
    after = inspect(name)["pids"].get<std::vector<int>>();
    if (after.size() == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(after.size(), 1u) << "processes left after kill";
}

TEST_F(SandboxExec, BackgroundOutputIsBoundedAndSaysSo) {
  std::string name = make("bounded", {"--log-limit", "64KiB"});
  auto started = corral({"exec", name, "-d", "--", "sh", "-c",
                         "i=0; while [ $i -lt 4000 ]; do echo line-$i-padding-padding-padding; i=$((i+1)); done; echo last-line"});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  std::string id = started.out.substr(0, 8);
  // Followed live, every line would be seen; read afterwards, only what was kept is there.
  for (int i = 0; i < 1000; ++i) {
    auto ps = nlohmann::json::parse(corral({"ps", name, "--json"}).out);
    if (ps.size() == 1 && ps[0]["state"] == "exited") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  auto logs = corral({"logs", name, id});
  EXPECT_TRUE(contains(logs.err, "log truncated")) << logs.err;
  EXPECT_TRUE(logs.out.ends_with("last-line\n"));
  EXPECT_LE(logs.out.size(), 64u * 1024);
  EXPECT_FALSE(contains(logs.out, "line-0-"));
}

// limits.output_bytes on a persistent sandbox: foreground output (pipes and a terminal) is cut
// at the limit by the client and the command's whole tree killed; a background job is cut by
// the supervisor; each time the exec says so and the log keeps a "limit" violation.
TEST_F(SandboxExec, OutputLimitCutsEveryKindOfExec) {
  std::string name = make("capped", {"--output-limit", "1000"});
  // The flood comes from a grandchild, so killing only the command would not stop it.
  const std::string flood = "(yes flood-line | head -c 100000; sleep 30; echo LEAKED) & wait";
  auto r = corral({"exec", name, "--", "sh", "-c", flood});
  EXPECT_EQ(r.exit_code, 137) << r.err;
  EXPECT_EQ(r.out.size(), 1000u);
  EXPECT_FALSE(contains(r.out, "LEAKED"));
  EXPECT_TRUE(contains(r.err, "output limit reached")) << r.err;
  EXPECT_TRUE(contains(r.err, "limit output")) << r.err;  // the violation summary
  // stdout and stderr count together.
  r = corral({"exec", name, "--", "sh", "-c", "head -c 600 /dev/zero; head -c 600 /dev/zero >&2; sleep 30"});
  EXPECT_EQ(r.exit_code, 137) << r.err;
  EXPECT_EQ(r.out.size() + r.err.find("corral:"), 1000u) << r.err;
  // A terminal's output too.
  r = corral({"exec", name, "-t", "--", "sh", "-c", "yes tty-line | head -c 50000; sleep 30"});
  EXPECT_EQ(r.exit_code, 137) << r.err;
  EXPECT_EQ(r.out.size(), 1000u);
  // A process the command leaves behind holding its output does not keep exec waiting (it
  // would, for five minutes, if exec drained until EOF).
  r = corral({"exec", name, "--", "sh", "-c", "sleep 300 & echo started"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "started\n");
  // Under the limit nothing happens.
  r = corral({"exec", name, "--", "sh", "-c", "echo fine"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "fine\n");
  EXPECT_EQ(r.err, "");
  // A background job: cut at the limit on disk, its tree killed, and `logs` says so.
  auto started = corral({"exec", name, "-d", "--", "sh", "-c", flood});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  std::string id = started.out.substr(0, 8);
  nlohmann::json ps;
  for (int i = 0; i < 500; ++i) {
    ps = nlohmann::json::parse(corral({"ps", name, "--json"}).out);
    if (ps.size() == 1 && ps[0]["state"] == "exited") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0]["state"], "exited") << ps.dump();
  EXPECT_EQ(ps[0]["exit_code"], 137) << ps.dump();
  EXPECT_EQ(ps[0]["output_limit_reached"], true) << ps.dump();
  EXPECT_TRUE(contains(corral({"ps", name}).out, " cut ")) << corral({"ps", name}).out;
  auto logs = corral({"logs", name, id});
  EXPECT_EQ(logs.out.size(), 1000u);
  EXPECT_TRUE(contains(logs.err, "output limit reached")) << logs.err;
  std::string log = read_file(sandbox_dir(name) + "/logs/violations.jsonl");
  std::size_t limits = 0;
  for (std::size_t at = 0; (at = log.find("\"subject\":\"output\"", at)) != std::string::npos; ++at)
    ++limits;
  EXPECT_EQ(limits, 4u) << log;
}

TEST_F(SandboxExec, AForegroundCommandDiesWithItsClient) {
  std::string name = make("orphan");
  pid_t client = fork();
  ASSERT_GE(client, 0);
  if (client == 0) {
    std::vector<std::string> args{corral_binary(), "exec", name, "--", "sleep", "777"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& [k, v] : env_) setenv(k.c_str(), v.c_str(), 1);
    execv(argv[0], argv.data());
    _exit(127);
  }
  std::vector<int> pids;
  for (int i = 0; i < 300 && pids.size() < 2; ++i) {
    pids = inspect(name)["pids"].get<std::vector<int>>();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(pids.size(), 2u);
  kill(client, SIGKILL);
  waitpid(client, nullptr, 0);
  for (int i = 0; i < 300 && pids.size() > 1; ++i) {
    pids = inspect(name)["pids"].get<std::vector<int>>();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(pids.size(), 1u) << "the command outlived its SIGKILL'd client";
}

}  // namespace
}  // namespace corral::test
