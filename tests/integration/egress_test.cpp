// Filtered egress (network.mode = "allowlist") through the real binary. Servers are the tests'
// own: most tests run corral inside a world they create (tests/data/egress/world.sh, in new
// user, network, mount and pid namespaces), where names in a private /etc/hosts point at
// addresses on that namespace's lo; nothing reaches a real network.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "common/sha256.hpp"
#include "integration/cli_support.hpp"

extern char** environ;

namespace corral::test {
namespace {

const char* kHosts =
    "127.0.0.1 localhost\n"
    "198.51.100.7 pkg.mirror.test files.mirror.test\n"
    "127.0.0.1 private.mirror.test\n"
    "169.254.169.254 metadata.mirror.test\n";

// Runs argv with stdout and stderr into files; returns the exit status (128+N for signal N).
int spawn_and_wait(const std::vector<std::string>& args, const std::string& out_path,
                   const std::string& err_path, const std::vector<std::string>& extra_env) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> argv, envp;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A world with a mirror server: see world.sh.
class EgressWorld : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(world_.file("hosts"), kHosts);
    std::filesystem::create_directories(world_.file("www/simple/demo"));
    std::filesystem::create_directories(ws_.path());
    write_file(world_.file("www/hello.txt"), "hello from the mirror\n");
  }

  // corral run --workspace WS --record REC ARGS -- sh -c SCRIPT, inside the world.
  CliResult run(const std::vector<std::string>& corral_args, const std::string& script) {
    std::vector<std::string> args{corral_binary(), "run",      "--workspace",
                                  ws_.path(),      "--record", record_path()};
    args.insert(args.end(), corral_args.begin(), corral_args.end());
    args.insert(args.end(), {"--", "/bin/sh", "-c", script});
    return in_world(args);
  }
  // Any command inside the world.
  CliResult in_world(const std::vector<std::string>& command) {
    // A pid namespace too: whatever happens, the world's server dies with it. It gets its own
    // /proc: with the host's, a pid read inside (getpid) names another process in /proc, which
    // made LeakSanitizer's exit-time scan of /proc/PID/task fail at random under ASan.
    std::vector<std::string> args{"/usr/bin/timeout",
                                  "-s",
                                  "KILL",
                                  "120",
                                  "/usr/bin/unshare",
                                  "-Urnmp",
                                  "--mount-proc",
                                  "--fork",
                                  "--kill-child",
                                  "/bin/sh",
                                  test_data_dir() + "/egress/world.sh"};
    args.insert(args.end(), command.begin(), command.end());
    CliResult r;
    std::filesystem::remove(world_.file("ready"));
    r.exit_code =
        spawn_and_wait(args, world_.file("out"), world_.file("err"), {"WORLD=" + world_.path()});
    r.out = read_file(world_.file("out"));
    r.err = read_file(world_.file("err"));
    return r;
  }
  std::string record_path() const { return ws_.path() + "/record.json"; }
  nlohmann::json record() const { return nlohmann::json::parse(read_file(record_path())); }
  std::vector<nlohmann::json> network_violations() const {
    std::vector<nlohmann::json> out;
    const nlohmann::json rec = record();
    for (const auto& v : rec["violations"])
      if (v["kind"] == "network") out.push_back(v);
    return out;
  }

  TempDir world_;
  TempDir ws_;
};

TEST_F(EgressWorld, ProxyClientsReachAnAllowedHost) {
  // Forwarded HTTP, CONNECT (-p), SOCKS5 through ALL_PROXY (socks5h: the proxy resolves),
  // SOCKS5 with the name resolved inside (by the sandbox's DNS), and Python's urllib (which
  // reads the proxy variables): each is one allowed connection to the mirror.
  auto r =
      run({"--allow-host", "pkg.mirror.test:8080"},
          "curl -sSf http://pkg.mirror.test:8080/hello.txt &&"
          "curl -sSfp http://pkg.mirror.test:8080/hello.txt &&"
          "curl -sSf -x \"$ALL_PROXY\" http://pkg.mirror.test:8080/hello.txt &&"
          "curl -sSf -x socks5://127.0.0.1:3128 http://pkg.mirror.test:8080/hello.txt &&"
          "/usr/bin/python3 -c 'import urllib.request as u; "
          "print(u.urlopen(\"http://pkg.mirror.test:8080/hello.txt\").read().decode(), end=\"\")'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string line = "hello from the mirror\n";
  EXPECT_EQ(r.out, line + line + line + line + line);
  auto rec = record();
  EXPECT_EQ(rec["network"]["allowed"]["pkg.mirror.test"], 5) << rec.dump();
  EXPECT_TRUE(network_violations().empty()) << rec.dump();
  EXPECT_EQ(std::find(rec["not_observed"].begin(), rec["not_observed"].end(), "network"),
            rec["not_observed"].end());  // only the narrower "network: ..." note
}

TEST_F(EgressWorld, RefusedConnectionsAreViolations) {
  auto r = run({"--allow-host", "pkg.mirror.test:8080"},
               "curl -s -o /dev/null -w '%{http_code}\\n' http://files.mirror.test:8080/hello.txt;"
               "curl -s -o /dev/null -w '%{http_code}\\n' http://pkg.mirror.test:8081/hello.txt;"
               "curl -sp http://files.mirror.test:8080/hello.txt; echo connect=$?;"
               "curl -s -x \"$ALL_PROXY\" http://files.mirror.test:8080/; echo socks=$?");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "403\n403\nconnect=56\nsocks=97\n");
  auto v = network_violations();
  ASSERT_EQ(v.size(), 4u) << record().dump();
  EXPECT_EQ(v[0]["host"], "files.mirror.test");
  EXPECT_EQ(v[0]["port"], 8080);
  EXPECT_EQ(v[0]["detail"], "not in the allow list");
  EXPECT_EQ(v[1]["host"], "pkg.mirror.test");  // allowed on 8080 only
  EXPECT_EQ(v[1]["port"], 8081);
  EXPECT_TRUE(record()["network"]["allowed"].empty());
  // corral's summary line names them too.
  EXPECT_NE(r.err.find("network files.mirror.test"), std::string::npos) << r.err;
}

TEST_F(EgressWorld, DenyBeatsAllowAndWildcardsCoverSubdomains) {
  auto r = run({"--allow-host", "*.mirror.test", "--deny-host", "files.mirror.test"},
               "curl -sSf http://pkg.mirror.test:8081/hello.txt;"
               "curl -s -o /dev/null -w '%{http_code}\\n' http://files.mirror.test:8080/;"
               "curl -s -o /dev/null -w '%{http_code}\\n' http://mirror.test:8080/");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hello from the mirror\n403\n403\n");
  auto v = network_violations();
  ASSERT_EQ(v.size(), 2u) << record().dump();
  EXPECT_EQ(v[0]["detail"], "denied by rule \"files.mirror.test\"");
  EXPECT_EQ(v[1]["host"], "mirror.test");
}

TEST_F(EgressWorld, NamesResolvingToPrivateAddressesAreRefused) {
  // Both names are allowed by the wildcard, but resolve to loopback and to the cloud-metadata
  // address: only a rule that names the address (or localhost) may reach those.
  auto r =
      run({"--allow-host", "*.mirror.test", "--allow-host", "169.254.169.254:8080", "--allow-host",
           "localhost:8081"},
          "curl -s -o /dev/null -w '%{http_code}\\n' http://private.mirror.test:8080/hello.txt;"
          "curl -s -o /dev/null -w '%{http_code}\\n' http://metadata.mirror.test:8080/hello.txt;"
          "curl -sSf http://169.254.169.254:8080/hello.txt;"
          "env -u NO_PROXY -u no_proxy curl -sSfp http://localhost:8081/hello.txt");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "403\n403\nhello from the mirror\nhello from the mirror\n");
  auto v = network_violations();
  ASSERT_EQ(v.size(), 2u) << record().dump();
  EXPECT_EQ(v[0]["host"], "private.mirror.test");
  EXPECT_NE(v[0]["detail"].get<std::string>().find("127.0.0.1, a loopback address"),
            std::string::npos);
  EXPECT_NE(v[1]["detail"].get<std::string>().find("169.254.169.254, a link-local address"),
            std::string::npos);
}

TEST_F(EgressWorld, ClientsWithoutProxySupportGetTransparentAccessToAllowedNamesOnly) {
  // No proxy variables at all: the sandbox's DNS answers allowed names with a loopback address
  // the proxy listens on; other names do not resolve; real addresses are unreachable.
  auto r = run(
      {"--allow-host", "pkg.mirror.test:8080"},
      "unset HTTP_PROXY http_proxy HTTPS_PROXY https_proxy ALL_PROXY all_proxy;"
      "curl -sSf http://pkg.mirror.test:8080/hello.txt;"
      "curl -sSf http://pkg.mirror.test:8080/host; echo;"
      "RES_OPTIONS=use-vc getent hosts pkg.mirror.test;"  // DNS over TCP
      "getent hosts files.mirror.test; echo getent=$?;"
      "curl -s --connect-timeout 5 http://198.51.100.7:8080/hello.txt; echo direct=$?;"
      "/usr/bin/python3 -c 'import socket; socket.create_connection((\"198.51.100.7\", 8080), 5)'"
      " 2>&1 | tail -1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "hello from the mirror\npkg.mirror.test:8080\n127.0.1.1       pkg.mirror.test\n"
            "getent=2\ndirect=7\n"
            "OSError: [Errno 101] Network is unreachable\n");
  auto rec = record();
  EXPECT_EQ(rec["network"]["allowed"]["pkg.mirror.test"], 2) << rec.dump();
  auto v = network_violations();
  ASSERT_FALSE(v.empty()) << rec.dump();
  for (const auto& x : v) {
    EXPECT_EQ(x["host"], "files.mirror.test");
    EXPECT_EQ(x["detail"], "DNS lookup of a name not in the allow list");
  }
}

TEST_F(EgressWorld, WildcardNamesGetTransparentAccessToo) {
  // A name first seen by the DNS responder (matched by "*.") gets a spare synthetic address.
  auto r = run({"--allow-host", "*.mirror.test"},
               "curl -sSf --noproxy '*' http://pkg.mirror.test/hello.txt &&"
               "curl -sSf --noproxy '*' http://files.mirror.test/host && echo &&"
               "getent hosts pkg.mirror.test files.mirror.test | cut -d' ' -f1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hello from the mirror\nfiles.mirror.test\n127.0.2.1\n127.0.2.2\n");
  auto rec = record();
  EXPECT_EQ(rec["network"]["allowed"]["pkg.mirror.test"], 1) << rec.dump();
  EXPECT_EQ(rec["network"]["allowed"]["files.mirror.test"], 1) << rec.dump();
}

TEST_F(EgressWorld, ConcurrentRunsEachHaveTheirOwnPolicy) {
  // Two runs at once, each allowing the host the other refuses.
  const std::string loop =
      "for i in 1 2 3 4 5; do curl -s -o /dev/null -w '%{http_code} ' http://\\$0:8080/hello.txt;"
      "curl -s -o /dev/null -w '%{http_code} ' http://\\$1:8080/hello.txt; done";
  auto one = [&](const std::string& tag, const std::string& allow, const std::string& a,
                 const std::string& b) {
    return corral_binary() + " run --quiet --workspace " + ws_.path() + " --record " + ws_.path() +
           "/" + tag + ".json --allow-host " + allow + " -- /bin/sh -c \"" + loop + "\" " + a +
           " " + b + " > " + ws_.path() + "/" + tag + ".out";
  };
  auto r = in_world({"/bin/sh", "-c",
                     one("a", "pkg.mirror.test", "pkg.mirror.test", "files.mirror.test") + " & " +
                         one("b", "files.mirror.test", "files.mirror.test", "pkg.mirror.test") +
                         " & wait"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string tag : {"a", "b"}) {
    EXPECT_EQ(read_file(ws_.path() + "/" + tag + ".out"),
              "200 403 200 403 200 403 200 403 200 403 ");
    auto rec = nlohmann::json::parse(read_file(ws_.path() + "/" + tag + ".json"));
    const std::string mine = tag == "a" ? "pkg.mirror.test" : "files.mirror.test";
    const std::string theirs = tag == "a" ? "files.mirror.test" : "pkg.mirror.test";
    EXPECT_EQ(rec["network"]["allowed"].size(), 1u) << rec.dump();
    EXPECT_EQ(rec["network"]["allowed"][mine], 5) << rec.dump();
    ASSERT_EQ(rec["violations"].size(), 5u) << rec.dump();
    for (const auto& v : rec["violations"]) EXPECT_EQ(v["host"], theirs);
  }
}

TEST_F(EgressWorld, TunnelsToAnAllowedHostCannotAskForAnotherName) {
  // Domain fronting: CONNECT to the allowed host, then a ClientHello for another name.
  write_file(ws_.file("hello.py"),
             "import socket, ssl, sys\n"
             "s = socket.create_connection(('127.0.0.1', 3128))\n"
             "s.sendall(b'CONNECT pkg.mirror.test:8080 HTTP/1.1\\r\\n\\r\\n')\n"
             "buf = b''\n"
             "while b'\\r\\n\\r\\n' not in buf: buf += s.recv(100)\n"
             "print(buf.split(b'\\r\\n')[0].decode())\n"
             "ctx = ssl.create_default_context()\n"
             "ctx.check_hostname = False\n"
             "ctx.verify_mode = ssl.CERT_NONE\n"
             "try:\n"
             "    ctx.wrap_socket(s, server_hostname=sys.argv[1])\n"
             "except (OSError, ssl.SSLError):\n"
             "    pass\n");
  // And plain HTTP naming another host, through the transparent path and a forwarded request.
  auto r =
      run({"--allow-host", "pkg.mirror.test:8080"},
          "/usr/bin/python3 " + ws_.file("hello.py") +
              " evil.example;"
              "/usr/bin/python3 " +
              ws_.file("hello.py") +
              " pkg.mirror.test;"
              "curl -s --noproxy '*' -H 'Host: files.mirror.test' http://pkg.mirror.test:8080/host;"
              "echo transparent=$?;"
              "curl -s -H 'Host: files.mirror.test' http://pkg.mirror.test:8080/host; echo");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "HTTP/1.1 200 Connection established\nHTTP/1.1 200 Connection established\n"
            "transparent=52\npkg.mirror.test:8080\n");
  auto v = network_violations();
  ASSERT_EQ(v.size(), 2u) << record().dump();
  EXPECT_EQ(v[0]["host"], "evil.example");
  EXPECT_EQ(v[0]["port"], 8080);
  EXPECT_NE(v[0]["detail"].get<std::string>().find("TLS server name evil.example in a tunnel to "
                                                   "pkg.mirror.test:8080"),
            std::string::npos);
  EXPECT_EQ(v[1]["host"], "files.mirror.test");
  EXPECT_NE(v[1]["detail"].get<std::string>().find("HTTP Host files.mirror.test in a tunnel"),
            std::string::npos);
}

TEST_F(EgressWorld, ParallelDownloadsArriveComplete) {
  std::string blob(4 << 20, '\0');
  std::mt19937_64 rng(42);
  for (auto& c : blob) c = static_cast<char>(rng());
  write_file(world_.file("www/blob.bin"), blob);
  const std::string want = sha256_hex(blob);
  // 24 downloads at once over the three proxy protocols and transparent mode.
  std::string script =
      "cd \"$(mktemp -d)\"; for i in 1 2 3 4 5 6; do "
      "curl -sSf -o f$i.a http://pkg.mirror.test:8080/blob.bin &"
      "curl -sSfp -o f$i.b http://pkg.mirror.test:8080/blob.bin &"
      "curl -sSf -x \"$ALL_PROXY\" -o f$i.c http://pkg.mirror.test:8080/blob.bin &"
      "curl -sSf --noproxy '*' -o f$i.d http://pkg.mirror.test:8080/blob.bin &"
      "done; wait; sha256sum f* | cut -d' ' -f1 | sort | uniq -c | sed 's/^ *//'";
  auto r = run({"--allow-host", "pkg.mirror.test:8080"}, script);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "24 " + want + "\n") << r.err;
  EXPECT_EQ(record()["network"]["allowed"]["pkg.mirror.test"], 24);
}

// A persistent sandbox's proxy outlives `corral create` (in a keeper process) and serves every
// exec; refusals land in logs/violations.jsonl; stop ends the keeper, start brings a new one.
TEST_F(EgressWorld, PersistentSandboxesGetTheAllowlistOnEveryExec) {
  const std::string c = corral_binary();
  const std::string script =
      "export CORRAL_HOME=\"$WORLD/state\"; C=" + c + "\n"
      // Command substitution: create must not leave its stdout open in the keeper.
      "made=$($C create net1 --workspace " + ws_.path() + " --allow-host pkg.mirror.test:8080)"
      " || exit 10\n"
      "echo made=$made\n"
      "keeper=$($C inspect net1 --json | python3 -c "
      "'import json,sys; print(json.load(sys.stdin)[\"egress_keeper\"][\"pid\"])')\n"
      "$C exec net1 -- curl -sSf http://pkg.mirror.test:8080/hello.txt || echo allowed-failed\n"
      "$C exec net1 -- curl -s -o /dev/null -w 'refused %{http_code}\\n' "
      "http://files.mirror.test:8080/hello.txt\n"
      "$C exec net1 -- sh -c 'curl -s --noproxy \\* -m 5 http://198.51.100.7:8080/ ||"
      " echo direct=$?'\n"
      "$C exec net1 -- python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0));"
      " s.listen()' 2>/dev/null || echo listen-refused\n"
      "for i in $(seq 50); do grep -q files.mirror.test \"$WORLD/state/sandboxes/net1/logs/"
      "violations.jsonl\" 2>/dev/null && break; sleep 0.1; done\n"
      "grep -c '\"subject\":\"files.mirror.test\"' \"$WORLD/state/sandboxes/net1/logs/"
      "violations.jsonl\"\n"
      "$C stop net1 >/dev/null\n"
      "kill -0 \"$keeper\" 2>/dev/null && echo keeper-alive-after-stop\n"
      "$C start net1 >/dev/null\n"
      "$C exec net1 -- curl -sSf http://pkg.mirror.test:8080/hello.txt || echo restarted-failed\n"
      // A crashed supervisor takes its keeper along, without any corral verb.
      "pids=$($C inspect net1 --json | python3 -c 'import json,sys; j=json.load(sys.stdin);"
      " print(j[\"supervisor\"][\"pid\"], j[\"egress_keeper\"][\"pid\"])')\n"
      "set -- $pids; kill -9 $1\n"
      "for i in $(seq 50); do kill -0 $2 2>/dev/null || break; sleep 0.1; done\n"
      "kill -0 $2 2>/dev/null && echo keeper-outlived-its-supervisor\n"
      "$C rm -f net1 >/dev/null\n"
      "kill -0 $keeper 2>/dev/null; echo first-keeper-alive=$?\n";
  auto r = in_world({"/bin/sh", "-c", script});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out,
            "made=net1\n"
            "hello from the mirror\n"
            "refused 403\n"
            "direct=7\n"
            "listen-refused\n"
            "1\n"
            "hello from the mirror\n"
            "first-keeper-alive=1\n")
      << r.err;
}

TEST_F(EgressWorld, PipDownloadFromAnAllowedMirror) {
  // A one-package simple index with a real (tiny) wheel, fetched by pip through the proxy.
  auto wheel = world_.file("www/simple/demo/demo-1.0-py3-none-any.whl");
  ASSERT_EQ(
      std::system(("/usr/bin/python3 -c 'import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],\"w\");"
                   "z.writestr(\"demo/__init__.py\",\"\");"
                   "z.writestr(\"demo-1.0.dist-info/METADATA\",\"Metadata-Version: 2.1\\nName: "
                   "demo\\nVersion: 1.0\\n\");"
                   "z.writestr(\"demo-1.0.dist-info/WHEEL\",\"Wheel-Version: 1.0\\nGenerator: "
                   "test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n\");"
                   "z.writestr(\"demo-1.0.dist-info/RECORD\",\"\"); z.close()' " +
                   wheel)
                      .c_str()),
      0);
  write_file(world_.file("www/simple/demo/index.html"),
             "<html><body><a "
             "href=\"demo-1.0-py3-none-any.whl\">demo-1.0-py3-none-any.whl</a></body></html>\n");
  auto r = run({"--allow-host", "pkg.mirror.test:8080"},
               "cd \"$(mktemp -d)\" && /usr/bin/python3 -m pip download --no-cache-dir "
               "--disable-pip-version-check --no-deps -q -d dl --trusted-host pkg.mirror.test "
               "--index-url http://pkg.mirror.test:8080/simple/ demo && ls dl;"
               "/usr/bin/python3 -m pip download --no-cache-dir --disable-pip-version-check "
               "--no-deps -q -d dl2 --retries 0 --timeout 5 --trusted-host files.mirror.test "
               "--index-url http://files.mirror.test:8080/simple/ demo "
               ">/dev/null 2>&1; echo other=$?");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "demo-1.0-py3-none-any.whl\nother=1\n") << r.err;
  bool refused = false;
  for (const auto& v : network_violations()) refused = refused || v["host"] == "files.mirror.test";
  EXPECT_TRUE(refused) << record().dump();
}

TEST_F(EgressWorld, NpmViewFromAnAllowedRegistry) {
  write_file(
      world_.file("www/demo"),
      R"({"name":"demo","dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{"name":"demo",)"
      R"("version":"1.0.0","dist":{"tarball":"http://pkg.mirror.test:8080/demo-1.0.0.tgz"}}}})");
  auto r = run({"--allow-host", "pkg.mirror.test:8080"},
               "cd \"$(mktemp -d)\"; export npm_config_cache=$PWD/cache;"
               "npm view demo version --registry http://pkg.mirror.test:8080/;"
               "npm view demo version --registry http://files.mirror.test:8080/ >/dev/null 2>&1;"
               "echo other=$?");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1.0.0\nother=1\n") << r.err;
  auto v = network_violations();
  ASSERT_EQ(v.size(), 1u) << record().dump();
  EXPECT_EQ(v[0]["host"], "files.mirror.test");
  EXPECT_GE(record()["network"]["allowed"]["pkg.mirror.test"].get<int>(), 1);
}

// Outside the world: what needs no server of its own.
class Egress : public ::testing::Test {
 protected:
  CliResult run(std::vector<std::string> extra, const std::string& script) {
    std::vector<std::string> args{"run", "--workspace", ws_.path(), "--record",
                                  ws_.file("rec.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", "/bin/sh", "-c", script});
    CliOptions opts;
    opts.cwd = ws_.path();
    return run_corral(args, opts);
  }
  TempDir ws_;
};

TEST_F(Egress, LocalServersNeedAllowLocalBinding) {
  const std::string script =
      "cd \"$(mktemp -d)\" && echo local > f.txt &&"
      "(/usr/bin/python3 -m http.server -b 127.0.0.1 8000 >/dev/null 2>err &) &&"
      "for i in $(seq 200); do curl -s http://127.0.0.1:8000/f.txt && break;"
      " grep -q Error err && break; sleep 0.05; done;"
      "grep -h '^PermissionError' err; true";
  auto ok = run({"--allow-host", "pypi.org", "--allow-local-binding"}, script);
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "local\n");
  auto refused = run({"--allow-host", "pypi.org"}, script);
  EXPECT_EQ(refused.out, "PermissionError: [Errno 1] Operation not permitted\n") << refused.err;
  auto rec = nlohmann::json::parse(read_file(ws_.file("rec.json")));
  bool listen_refused = false;
  for (const auto& v : rec["violations"])
    listen_refused = listen_refused || v["subject"] == "listen";
  EXPECT_TRUE(listen_refused) << rec.dump();
}

TEST_F(Egress, ProxyVariablesPointAtTheBridge) {
  auto r =
      run({"--deny-host", "example.com"},  // a deny rule alone implies allowlist mode
          "echo $HTTP_PROXY $https_proxy $ALL_PROXY $NO_PROXY $PIP_PROXY $npm_config_https_proxy;"
          "git config --get http.proxy; head -2 /etc/resolv.conf | tail -1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "http://127.0.0.1:3128 http://127.0.0.1:3128 socks5h://127.0.0.1:3128 "
            "localhost,127.0.0.1,::1 http://127.0.0.1:3128 http://127.0.0.1:3128\n"
            "http://127.0.0.1:3128\nnameserver 127.0.0.1\n");
}

TEST_F(Egress, MalformedPatternsAreInputErrorsNamingThePattern) {
  for (auto [flag, pattern] :
       {std::pair{"--allow-host", "https://pypi.org"}, std::pair{"--deny-host", "bad..name"},
        std::pair{"--allow-host", "pypi.org:70000"}}) {
    auto r = run({flag, pattern}, "touch ran");
    EXPECT_EQ(r.exit_code, 125) << pattern;
    EXPECT_NE(r.err.find(pattern), std::string::npos) << r.err;
    EXPECT_FALSE(path_exists(ws_.file("ran")));
  }
  write_file(ws_.file("p.toml"),
             "[network]\nmode = \"allowlist\"\ndeny = [\"*.ok.org\", \"x*y.org\"]\n");
  auto check = run_corral({"policy", "check", ws_.file("p.toml")});
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_NE(check.err.find("x*y.org"), std::string::npos) << check.err;
}

}  // namespace
}  // namespace corral::test
