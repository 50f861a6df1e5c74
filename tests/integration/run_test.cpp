// `corral run` through the real binary: exit statuses, filesystem view, isolation, env, output.
#include <gtest/gtest.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "integration/cli_support.hpp"

namespace corral::test {
namespace {

class RunTest : public ::testing::Test {
 protected:
  // corral run --workspace WS [extra...] -- cmd..., from inside WS.
  CliResult run(const std::vector<std::string>& cmd, std::vector<std::string> extra = {},
                CliOptions opts = {}) {
    std::vector<std::string> args{"run", "--workspace", ws_.path()};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("--");
    args.insert(args.end(), cmd.begin(), cmd.end());
    if (opts.cwd.empty()) opts.cwd = ws_.path();
    return run_corral(args, opts);
  }
  CliResult sh(const std::string& script, std::vector<std::string> extra = {}, CliOptions opts = {}) {
    return run({"/bin/sh", "-c", script}, std::move(extra), std::move(opts));
  }
  TempDir ws_;
};

TEST(Cli, HelpListsEveryVerbAndEachVerbHasItsOwn) {
  // main() builds only the named verb's parser; the overview must still list them all.
  auto r = run_corral({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* verb : {"run", "policy", "doctor", "gc", "create", "exec", "shell", "ps", "logs",
                           "kill", "ls", "inspect", "stop", "start", "rm", "update", "diff",
                           "checkpoint", "rollback", "checkpoints", "fork", "apply", "commit",
                           "merge"})
    EXPECT_NE(r.out.find(std::string("\n  ") + verb + " "), std::string::npos) << verb << "\n" << r.out;
  r = run_corral({"exec", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Usage: corral exec"), std::string::npos) << r.out;
  r = run_corral({"exce", "x"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_corral({"--version"});
  EXPECT_EQ(r.out, "corral 0.1.0\n");
}

TEST_F(RunTest, ExitStatusIsTheCommands) {
  EXPECT_EQ(run({"/bin/true"}).exit_code, 0);
  EXPECT_EQ(sh("exit 7").exit_code, 7);
}

TEST_F(RunTest, DeathBySignalIs128PlusN) {
  auto r = sh("kill -9 $$");
  EXPECT_EQ(r.exit_code, 137) << r.err;
  auto t = sh("kill -TERM $$");
  EXPECT_EQ(t.exit_code, 143) << t.err;
}

TEST_F(RunTest, CommandNotFoundIs127) {
  auto r = run({"corral-no-such-command"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("corral-no-such-command: command not found"), std::string::npos) << r.err;
}

TEST_F(RunTest, NotExecutableIs126) {
  write_file(ws_.file("script.sh"), "#!/bin/sh\necho hi\n");
  chmod(ws_.file("script.sh").c_str(), 0644);
  auto r = run({ws_.file("script.sh")});
  EXPECT_EQ(r.exit_code, 126);
  EXPECT_NE(r.err.find("cannot execute"), std::string::npos) << r.err;
}

TEST_F(RunTest, CorralFailureBeforeTheCommandIs125AndRunsNothing) {
  write_file(ws_.file("bad.toml"), "[filesystem]\nread_deny = 3\n");
  auto r = sh("touch ran", {"--policy", ws_.file("bad.toml")});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_NE(r.err.find("bad.toml:2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("filesystem.read_deny"), std::string::npos) << r.err;
  EXPECT_FALSE(path_exists(ws_.file("ran")));

  auto flag = sh("touch ran", {"--no-such-flag"});
  EXPECT_EQ(flag.exit_code, 125);
  EXPECT_FALSE(path_exists(ws_.file("ran")));

  auto missing_ws = run_corral({"run", "--workspace", ws_.file("nope"), "--", "/bin/true"});
  EXPECT_EQ(missing_ws.exit_code, 125);
  EXPECT_NE(missing_ws.err.find("nope"), std::string::npos) << missing_ws.err;
}

TEST_F(RunTest, WorkspaceWritesLandOnTheHost) {
  // The workspace lies under /tmp, which is private inside: it must still be the host's.
  auto r = sh("echo hello > out.txt && mkdir -p d && echo x > d/y");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(ws_.file("out.txt")), "hello\n");
  EXPECT_EQ(read_file(ws_.file("d/y")), "x\n");
}

TEST_F(RunTest, HostRootIsReadOnlyAndNothingLeaks) {
  std::string probe = "/usr/corral-write-probe-" + std::to_string(getpid());
  auto r = sh("echo x > " + probe);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("Read-only file system"), std::string::npos) << r.err;
  EXPECT_FALSE(path_exists(probe));
  // Every submount too: /etc, /var, the caller's home.
  for (std::string dir : {"/etc", "/var/tmp", "/home", "/root"}) {
    auto w = sh("touch " + dir + "/corral-probe-" + std::to_string(getpid()));
    EXPECT_NE(w.exit_code, 0) << dir;
    EXPECT_FALSE(path_exists(dir + "/corral-probe-" + std::to_string(getpid())));
  }
}

TEST_F(RunTest, TmpIsPrivate) {
  std::string host_marker = "/tmp/corral-host-marker-" + std::to_string(getpid());
  write_file(host_marker, "x");
  auto r = sh("ls /tmp; test ! -e " + host_marker + " && echo inside > /tmp/corral-inside-" +
              std::to_string(getpid()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(path_exists("/tmp/corral-inside-" + std::to_string(getpid())));
  unlink(host_marker.c_str());
}

TEST_F(RunTest, DenyReadOnAFileAndADirectory) {
  TempDir other;
  write_file(other.file("secret.txt"), "s3cr3t");
  std::filesystem::create_directories(other.path() + "/secrets");
  write_file(other.path() + "/secrets/key", "k3y");
  auto f = sh("cat " + other.file("secret.txt"), {"--ro", other.path(), "--deny-read", other.file("secret.txt")});
  EXPECT_NE(f.exit_code, 0);
  EXPECT_EQ(f.out.find("s3cr3t"), std::string::npos);
  auto d = sh("ls " + other.path() + "/secrets; cat " + other.path() + "/secrets/key",
              {"--rw", other.path(), "--deny-read", other.path() + "/secrets"});
  EXPECT_NE(d.exit_code, 0);
  EXPECT_EQ(d.out.find("k3y"), std::string::npos);
  EXPECT_EQ(d.out.find("key"), std::string::npos);
  // A denied directory is not writable, even inside a writable area.
  auto w = sh("touch " + other.path() + "/secrets/new", {"--rw", other.path(), "--deny-read", other.path() + "/secrets"});
  EXPECT_NE(w.exit_code, 0);
  EXPECT_FALSE(path_exists(other.path() + "/secrets/new"));
  // And the file stays intact on the host.
  EXPECT_EQ(read_file(other.path() + "/secrets/key"), "k3y");
}

TEST_F(RunTest, DefaultSecretsAreUnreadable) {
  TempDir home;
  std::filesystem::create_directories(home.path() + "/.ssh");
  write_file(home.path() + "/.ssh/id_ed25519", "PRIVATE KEY");
  write_file(home.path() + "/.netrc", "machine x password hunter2");
  write_file(home.path() + "/notes.txt", "visible");
  auto env = std::map<std::string, std::string>{{"HOME", home.path()}, {"PATH", "/usr/bin:/bin"}};
  CliOptions opts;
  opts.env = env;
  // The home is made visible (it lies under the private /tmp): only the deny rules hide secrets.
  auto control = sh("cat ~/notes.txt", {"--ro", home.path()}, opts);
  EXPECT_EQ(control.out, "visible") << control.err;
  auto r = sh("cat ~/.ssh/id_ed25519; cat ~/.netrc; cat /etc/shadow; ls ~/.ssh", {"--ro", home.path()}, opts);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.out.find("id_ed25519"), std::string::npos);
  EXPECT_EQ(r.out.find("PRIVATE KEY"), std::string::npos);
  EXPECT_EQ(r.out.find("hunter2"), std::string::npos);
  EXPECT_EQ(r.out.find("root:"), std::string::npos);
}

TEST_F(RunTest, RoAndRwFlags) {
  TempDir a, b;
  write_file(a.file("f"), "a");
  auto ro = sh("cat " + a.file("f") + " && touch " + a.file("g"), {"--ro", a.path()});
  EXPECT_NE(ro.exit_code, 0);
  EXPECT_EQ(ro.out, "a");
  EXPECT_FALSE(path_exists(a.file("g")));
  auto rw = sh("echo b > " + b.file("f"), {"--rw", b.path()});
  EXPECT_EQ(rw.exit_code, 0) << rw.err;
  EXPECT_EQ(read_file(b.file("f")), "b\n");
}

TEST_F(RunTest, WritesThatMayHappenAreNotViolations) {
  // Every kind of watched call, where the policy allows it: no violation, and each one worked.
  TempDir rec;
  auto r = sh("set -e; mkdir -p d/e && echo x > d/f && ln d/f d/hard && ln -s f d/soft && "
              "mv d/f d/g && chmod 600 d/g && truncate -s 1 d/g && rm d/hard && rmdir d/e && "
              "echo t > /tmp/t && mv /tmp/t /tmp/u && echo ok > /dev/null && "
              "/usr/bin/python3 -c 'import os; os.open(\"d/n\", os.O_RDWR | os.O_CREAT); "
              "os.open(\"/etc/hostname\", os.O_RDONLY | os.O_CREAT)' && ls d",
              {"--record", rec.file("rec.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "g\nn\nsoft\n");
  auto j = nlohmann::json::parse(read_file(rec.file("rec.json")));
  EXPECT_TRUE(j["violations"].empty()) << j["violations"].dump();
}

TEST_F(RunTest, WritesToReadOnlyPathsAreRecordedWithTheirPath) {
  TempDir ro, rec;
  write_file(ro.file("f"), "keep");
  auto r = sh("echo x > " + ro.file("f") + "; touch " + ro.file("new") + "; rm " + ro.file("f") +
                  "; mkdir /usr/evil; cd " + ro.path() + " && mv f g; ln -s f l; "
                  "echo x >> f; exit 0",
              {"--ro", ro.path(), "--record", rec.file("rec.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(ro.file("f")), "keep");
  auto j = nlohmann::json::parse(read_file(rec.file("rec.json")));
  std::vector<std::string> got;
  for (const auto& v : j["violations"]) {
    EXPECT_EQ(v["kind"], "filesystem");
    EXPECT_NE(v["detail"].get<std::string>().find("EROFS"), std::string::npos) << v.dump();
    got.push_back(v["subject"]);
  }
  std::vector<std::string> want{ro.file("f"), ro.file("new"), ro.file("f"), "/usr/evil",
                                ro.file("f"), ro.file("l"),   ro.file("f")};
  EXPECT_EQ(got, want) << j["violations"].dump();
  // The summary on stderr names them too.
  EXPECT_NE(r.err.find("corral: 7 violations: filesystem "), std::string::npos) << r.err;
}

TEST_F(RunTest, AHostileFileNameIsRecordedAsText) {
  // Invalid UTF-8 in a refused path (and in argv) must not break the JSON record.
  TempDir rec;
  auto r = run({"/bin/sh", "-c", "touch \"$(printf '/usr/bad\\377name')\"; exit 0", "\xff"},
               {"--record", rec.file("rec.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(read_file(rec.file("rec.json")));
  ASSERT_EQ(j["violations"].size(), 1u) << j.dump();
  EXPECT_EQ(j["violations"][0]["subject"], "/usr/bad\\xFFname");
}

TEST_F(RunTest, AFloodOfRefusalsIsCappedAndCounted) {
  TempDir rec;
  auto r = run({"/usr/bin/python3", "-c",
                "import os\n"
                "for i in range(1500):\n"
                "    try: os.open('/etc/flood', os.O_WRONLY | os.O_CREAT)\n"
                "    except OSError: pass\n"},
               {"--record", rec.file("rec.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(read_file(rec.file("rec.json")));
  ASSERT_EQ(j["violations"].size(), 1001u);
  EXPECT_EQ(j["violations"][999]["subject"], "/etc/flood");
  EXPECT_EQ(j["violations"][1000]["kind"], "truncated");
  EXPECT_NE(j["violations"][1000]["detail"].get<std::string>().find("500 more"), std::string::npos)
      << j["violations"][1000].dump();
}

TEST_F(RunTest, EnvironmentIsDenyByDefault) {
  std::map<std::string, std::string> env{{"PATH", "/usr/bin:/bin"}, {"HOME", "/root"},
                                         {"AWS_SECRET_ACCESS_KEY", "leak"}, {"LC_TIME", "C"},
                                         {"KEEP_ME", "kept"}};
  CliOptions opts;
  opts.env = env;
  auto r = run({"/usr/bin/env"}, {}, opts);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("AWS_SECRET_ACCESS_KEY"), std::string::npos);
  EXPECT_EQ(r.out.find("KEEP_ME"), std::string::npos);
  EXPECT_NE(r.out.find("PATH=/usr/bin:/bin"), std::string::npos);
  EXPECT_NE(r.out.find("LC_TIME=C"), std::string::npos);
  auto p = run({"/usr/bin/env"}, {"--env", "KEEP_ME", "--env", "CI=1"}, opts);
  EXPECT_NE(p.out.find("KEEP_ME=kept"), std::string::npos);
  EXPECT_NE(p.out.find("CI=1"), std::string::npos);
}

TEST_F(RunTest, OnlyTheSandboxsProcessesAreVisible) {
  auto r = sh("echo $$; ls /proc | grep -c '^[0-9]'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The command is PID 2 (init is 1); sh, ls and grep are all there is.
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "2");
  int visible = std::stoi(r.out.substr(r.out.find('\n') + 1));
  EXPECT_LE(visible, 5);
  auto init = sh("cat /proc/1/comm");
  EXPECT_EQ(init.out, "corral\n");
}

TEST_F(RunTest, OnlyLoopbackAndOwnHostname) {
  auto r = sh("ls /sys/class/net; cat /proc/sys/kernel/hostname; grep -c : /proc/net/dev");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "lo\ncorral\n1\n");
  auto up = sh("cat /sys/class/net/lo/operstate /sys/class/net/lo/flags");
  EXPECT_NE(up.out.find("0x9"), std::string::npos) << up.out;  // IFF_UP|IFF_LOOPBACK
}

TEST_F(RunTest, HostNetworkWithNetAll) {
  auto r = sh("ls /sys/class/net | wc -l", {"--net", "all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(std::stoi(r.out), 1);
}

TEST_F(RunTest, CannotMountOrRegainPrivileges) {
  auto m = sh("mkdir -p /tmp/m && mount -t tmpfs none /tmp/m");
  EXPECT_NE(m.exit_code, 0);
  auto caps = sh("grep -E '^Cap(Eff|Prm|Bnd|Amb):|^NoNewPrivs:' /proc/self/status");
  ASSERT_EQ(caps.exit_code, 0) << caps.err;
  EXPECT_NE(caps.out.find("CapEff:\t0000000000000000"), std::string::npos) << caps.out;
  EXPECT_NE(caps.out.find("CapPrm:\t0000000000000000"), std::string::npos) << caps.out;
  EXPECT_NE(caps.out.find("CapBnd:\t0000000000000000"), std::string::npos) << caps.out;
  EXPECT_NE(caps.out.find("NoNewPrivs:\t1"), std::string::npos) << caps.out;
}

TEST_F(RunTest, MinimalDev) {
  auto r = sh("ls /dev | tr '\\n' ' '; echo x > /dev/null && head -c 4 /dev/zero | wc -c");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* n : {"null", "zero", "full", "random", "urandom", "tty", "pts", "shm", "ptmx"})
    EXPECT_NE(r.out.find(std::string(n) + " "), std::string::npos) << n << " in " << r.out;
  EXPECT_EQ(r.out.find("sda"), std::string::npos);
  EXPECT_NE(sh("touch /dev/newfile").exit_code, 0);
}

TEST_F(RunTest, LargeOutputIsCompleteAndSeparate) {
  // 100 MiB on stdout and 20 MiB on stderr at the same time.
  auto r = sh("yes abcdefghi | head -c 104857600 & yes 012345678 | head -c 20971520 >&2; wait");
  ASSERT_EQ(r.exit_code, 0);
  ASSERT_EQ(r.out.size(), 104857600u);
  ASSERT_EQ(r.err.size(), 20971520u);
  EXPECT_EQ(r.out.find_first_not_of("abcdefghi\n"), std::string::npos);
  EXPECT_EQ(r.err.find_first_not_of("012345678\n"), std::string::npos);
}

TEST_F(RunTest, RecordHasEveryField) {
  std::string rec_path = ws_.file("rec.json");
  auto r = sh("exit 3", {"--id", "corr-42", "--record", rec_path});
  ASSERT_EQ(r.exit_code, 3) << r.err;
  auto j = nlohmann::json::parse(read_file(rec_path));
  EXPECT_EQ(j["id"], "corr-42");
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_EQ(j["argv"][0], "/bin/sh");
  EXPECT_TRUE(j["signal"].is_null());
  EXPECT_EQ(j["timed_out"], false);
  EXPECT_EQ(j["oom_killed"], false);
  EXPECT_TRUE(j["duration_ms"].is_number());
  EXPECT_TRUE(j["cpu_ms"].is_number());
  EXPECT_TRUE(j["peak_memory_bytes"].is_number());
  EXPECT_EQ(j["policy_hash"].get<std::string>().rfind("sha256:", 0), 0u);
  EXPECT_TRUE(j["violations"].is_array() && j["violations"].empty());
  EXPECT_TRUE(j["writes"].is_array() && j["writes"].empty());
  // A fresh id when none is given.
  auto r2 = sh("kill -9 $$", {"--record", rec_path});
  auto j2 = nlohmann::json::parse(read_file(rec_path));
  EXPECT_NE(j2["id"], "corr-42");
  EXPECT_EQ(j2["signal"], "SIGKILL");
  EXPECT_EQ(j2["exit_code"], 137);
}

TEST_F(RunTest, TimeLimitKillsTheTreeWith124) {
  auto r = sh("setsid sh -c 'sleep 100' & sleep 100", {"--timeout", "500ms"});
  EXPECT_EQ(r.exit_code, 124) << r.err;
}

TEST_F(RunTest, TerminalIsPassedThrough) {
  // script(1) gives corral a real terminal; the command must see it as its own.
  std::string cmd = corral_binary() + " run --workspace " + ws_.path() + " -- /bin/sh -c 'test -t 0 && test -t 1 && echo both-tty; stty size'";
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(ws_.file("tty.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execl("/usr/bin/script", "script", "-qec", cmd.c_str(), "/dev/null", nullptr);
    _exit(99);
  }
  int status;
  waitpid(pid, &status, 0);
  std::string out = read_file(ws_.file("tty.out"));
  // stty talks to the terminal itself (TCGETS, TIOCGWINSZ): "rows cols".
  EXPECT_TRUE(out.find(" 80") != std::string::npos || out.find(" 0") != std::string::npos) << out;
  EXPECT_NE(out.find("both-tty"), std::string::npos) << out;
}

// Starts `corral run` in the background and returns its pid.
pid_t spawn_corral(const std::vector<std::string>& args, const std::string& cwd,
                   const std::string& out_file) {
  pid_t pid = fork();
  if (pid == 0) {
    if (chdir(cwd.c_str()) != 0) _exit(98);
    int fd = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<std::string> all{corral_binary()};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(99);
  }
  return pid;
}

bool wait_for(const std::function<bool()>& cond, int ms) {
  for (int i = 0; i < ms / 20; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return cond();
}

TEST_F(RunTest, SigkillOfCorralLeavesNoProcessBehind) {
  // The marker is assembled inside the sandbox, so only the sandboxed sleepers carry it, not
  // corral's own command line.
  std::string head = "corral-orphan-", tail = std::to_string(getpid()) + "-" + std::to_string(rand());
  std::string marker = head + tail;
  std::string script = "h=" + head + "; (setsid bash -c \"exec -a ${h}" + tail +
                       " sleep 300\" &); exec -a \"${h}" + tail + "\" sleep 300";
  pid_t pid = spawn_corral({"run", "--workspace", ws_.path(), "--", "/bin/bash", "-c", script},
                           ws_.path(), ws_.file("out"));
  ASSERT_TRUE(wait_for([&] { return process_with_arg_exists(marker); }, 10000)) << "never started";
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(wait_for([&] { return !process_with_arg_exists(marker); }, 5000))
      << "sandboxed processes survived corral's SIGKILL";
}

TEST_F(RunTest, SigtermReachesTheCommand) {
  std::string script = "trap 'echo term > got-term; exit 3' TERM; touch started; while :; do sleep 0.05; done";
  pid_t pid = spawn_corral({"run", "--workspace", ws_.path(), "--", "/bin/sh", "-c", script},
                           ws_.path(), ws_.file("out"));
  ASSERT_TRUE(wait_for([&] { return path_exists(ws_.file("started")); }, 10000));
  kill(pid, SIGTERM);
  int status;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  EXPECT_TRUE(path_exists(ws_.file("got-term")));
}

TEST_F(RunTest, SigintReachesTheCommand) {
  std::string script = "trap 'exit 4' INT; touch started; while :; do sleep 0.05; done";
  pid_t pid = spawn_corral({"run", "--workspace", ws_.path(), "--", "/bin/sh", "-c", script},
                           ws_.path(), ws_.file("out"));
  ASSERT_TRUE(wait_for([&] { return path_exists(ws_.file("started")); }, 10000));
  kill(pid, SIGINT);
  int status;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 4);
}

}  // namespace
}  // namespace corral::test

namespace corral::test {
namespace {

TEST(RunWriteDeny, GitHooksAndConfigStayReadOnlyInTheWorkspace) {
  TempDir ws;
  std::filesystem::create_directories(ws.path() + "/.git/hooks");
  write_file(ws.path() + "/.git/config", "[core]\n");
  auto r = run_corral({"run", "--workspace", ws.path(), "--", "/bin/sh", "-c",
                       "echo evil > .git/hooks/pre-commit || echo hooks-refused; "
                       "echo evil >> .git/config || echo config-refused; echo ok > fine"},
                      CliOptions{ws.path()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hooks-refused\nconfig-refused\n");
  EXPECT_FALSE(path_exists(ws.path() + "/.git/hooks/pre-commit"));
  EXPECT_EQ(read_file(ws.path() + "/.git/config"), "[core]\n");
  EXPECT_EQ(read_file(ws.path() + "/fine"), "ok\n");
}

TEST(RunWriteDeny, RemovingOrReplacingAProtectedFileIsRecorded) {
  // git writes config.lock and renames it over .git/config: refused (EBUSY: a mount point).
  TempDir ws, rec;
  std::filesystem::create_directories(ws.path() + "/.git");
  write_file(ws.path() + "/.git/config", "[core]\n");
  auto r = run_corral({"run", "--workspace", ws.path(), "--record", rec.file("rec.json"), "--",
                       "/bin/sh", "-c",
                       "rm -f .git/config; echo x > .git/config.lock; "
                       "/usr/bin/python3 -c 'import os; os.rename(\".git/config.lock\", "
                       "\".git/config\")'; mkdir -p h; mv h .git/hooks; exit 0"},
                      CliOptions{ws.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(ws.path() + "/.git/config"), "[core]\n");
  auto j = nlohmann::json::parse(read_file(rec.file("rec.json")));
  std::vector<std::string> got;
  for (const auto& v : j["violations"]) {
    std::string d = v["detail"];
    got.push_back(v["subject"].get<std::string>() + " " + d.substr(0, d.find(':')) +
                  (d.find("EBUSY") != std::string::npos ? " EBUSY" : "") +
                  (d.find("refused by corral") != std::string::npos ? " by-corral" : ""));
  }
  // The rename of a new directory onto the absent .git/hooks is refused by corral's monitor.
  EXPECT_EQ(got, (std::vector<std::string>{ws.path() + "/.git/config unlinkat EBUSY",
                                           ws.path() + "/.git/config rename EBUSY",
                                           ws.path() + "/.git/hooks renameat2 by-corral"}))
      << j["violations"].dump();
  EXPECT_FALSE(path_exists(ws.path() + "/.git/hooks"));
}

TEST(RunWriteDeny, AnAbsentWriteDenyPathIsGuardedByTheMonitorAndSaidSo) {
  // No .git yet: no mount can protect .git/hooks. The record says so up front (and how it is
  // guarded instead); creating it is refused and recorded (tests/escape tries every way).
  TempDir ws, rec;
  auto r = run_corral({"run", "--workspace", ws.path(), "--record", rec.file("rec.json"), "--",
                       "/bin/sh", "-c", "mkdir -p .git/hooks && echo x > .git/hooks/pre-commit"},
                      CliOptions{ws.path()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(path_exists(ws.path() + "/.git"));  // not itself denied
  EXPECT_FALSE(path_exists(ws.path() + "/.git/hooks"));
  auto j = nlohmann::json::parse(read_file(rec.file("rec.json")));
  bool said = false;
  for (const auto& n : j["not_enforced"])
    said = said || n.get<std::string>().find("write_deny " + ws.path() + "/.git/hooks") !=
                       std::string::npos;
  EXPECT_TRUE(said) << j["not_enforced"].dump();
  std::vector<std::string> subjects;
  for (const auto& v : j["violations"]) {
    EXPECT_NE(v["detail"].get<std::string>().find("refused by corral with EROFS"),
              std::string::npos) << v.dump();
    subjects.push_back(v["subject"]);
  }
  EXPECT_EQ(subjects, (std::vector<std::string>{ws.path() + "/.git/hooks"}))
      << j["violations"].dump();
}

}  // namespace
}  // namespace corral::test

namespace corral::test {
namespace {

TEST(RunLandlock, WritesAMountWouldAllowAreStillRefused) {
  // The fresh /proc is a writable mount; only Landlock stands between the command and
  // /proc/self/comm. (When Landlock is missing, doctor warns and the record says so.)
  TempDir ws;
  auto r = run_corral({"run", "--workspace", ws.path(), "--", "/bin/sh", "-c",
                       "echo renamed > /proc/self/comm && echo wrote"},
                      CliOptions{ws.path()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.out.find("wrote"), std::string::npos);
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace corral::test
