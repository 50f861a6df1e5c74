// Tests of the canonical JSON, the policy hash (stable, and sensitive to every field) and the
// human-readable summary.
#include "policy/show.hpp"

#include <gtest/gtest.h>

#include <set>

namespace corral {
namespace {

// "sha256:" and 64 lowercase hex digits. (No std::regex: GCC 12 under ASan warns falsely.)
bool is_policy_hash(const std::string& s) {
  return s.size() == 71 && s.rfind("sha256:", 0) == 0 &&
         s.find_first_not_of("0123456789abcdef", 7) == std::string::npos;
}

EffectivePolicy sample() {
  EffectivePolicy p;
  p.workspace = "/work/ws";
  p.filesystem.read_deny = {"/home/u/.ssh", "/etc/shadow"};
  p.filesystem.read_allow = {"/home/u/.ssh/known_hosts"};
  p.filesystem.write_allow = {"/work/ws"};
  p.filesystem.write_deny = {"/work/ws/.git/hooks"};
  p.filesystem.read_only = {"/opt/data"};
  p.network.mode = NetMode::allowlist;
  p.network.allow = {"pypi.org"};
  p.network.deny = {"*.internal"};
  p.env.pass = {"HOME", "PATH"};
  p.env.set = {{"CI", "1"}};
  return p;
}

TEST(PolicyJson, HasEveryFieldInTheDocumentedOrder) {
  auto j = policy_to_json(sample());
  std::vector<std::string> top;
  for (auto it = j.begin(); it != j.end(); ++it) top.push_back(it.key());
  EXPECT_EQ(top, (std::vector<std::string>{"workspace", "filesystem", "network", "env", "limits",
                                           "process"}));
  std::vector<std::string> fs, net, env, lim;
  for (auto it = j["filesystem"].begin(); it != j["filesystem"].end(); ++it) fs.push_back(it.key());
  for (auto it = j["network"].begin(); it != j["network"].end(); ++it) net.push_back(it.key());
  for (auto it = j["env"].begin(); it != j["env"].end(); ++it) env.push_back(it.key());
  for (auto it = j["limits"].begin(); it != j["limits"].end(); ++it) lim.push_back(it.key());
  std::vector<std::string> proc;
  for (auto it = j["process"].begin(); it != j["process"].end(); ++it) proc.push_back(it.key());
  EXPECT_EQ(proc, (std::vector<std::string>{"seccomp", "base", "allow_nested_userns", "block"}));
  EXPECT_EQ(fs, (std::vector<std::string>{"read_deny", "read_allow", "write_allow", "write_deny",
                                          "read_only"}));
  EXPECT_EQ(net, (std::vector<std::string>{"mode", "allow", "deny", "allow_local_binding"}));
  EXPECT_EQ(env, (std::vector<std::string>{"pass", "set"}));
  EXPECT_EQ(lim, (std::vector<std::string>{"memory_bytes", "pids", "cpus", "timeout_ms",
                                           "output_bytes"}));
}

TEST(PolicyJson, UnsetLimitsAreNullAndSetOnesAreNumbers) {
  auto p = sample();
  auto j = policy_to_json(p);
  for (const char* k : {"memory_bytes", "pids", "cpus", "timeout_ms", "output_bytes"})
    EXPECT_TRUE(j["limits"][k].is_null()) << k;
  p.limits.memory_bytes = 2ULL << 30;
  p.limits.pids = 512;
  p.limits.cpus = 1.5;
  p.limits.timeout = std::chrono::minutes(10);
  p.limits.output_bytes = 64ULL << 20;
  j = policy_to_json(p);
  EXPECT_EQ(j["limits"]["memory_bytes"], 2147483648ULL);
  EXPECT_EQ(j["limits"]["pids"], 512);
  EXPECT_EQ(j["limits"]["cpus"], 1.5);
  EXPECT_EQ(j["limits"]["timeout_ms"], 600000);
  EXPECT_EQ(j["limits"]["output_bytes"], 67108864);
  EXPECT_EQ(j["network"]["mode"], "allowlist");
  EXPECT_EQ(j["env"]["set"]["CI"], "1");
}

TEST(PolicyJson, ExactCompactForm) {
  EffectivePolicy p;
  p.workspace = "/w";
  p.filesystem.write_allow = {"/w"};
  EXPECT_EQ(
      policy_to_json(p).dump(),
      R"({"workspace":"/w","filesystem":{"read_deny":[],"read_allow":[],"write_allow":["/w"],)"
      R"("write_deny":[],"read_only":[]},"network":{"mode":"none","allow":[],"deny":[],)"
      R"("allow_local_binding":false},"env":{"pass":[],"set":{}},"limits":{"memory_bytes":null,)"
      R"("pids":null,"cpus":null,"timeout_ms":null,"output_bytes":null},)"
      R"("process":{"seccomp":"default","base":"default","allow_nested_userns":false,)"
      R"("block":[]}})");
}

TEST(PolicyJson, InvalidUtf8IsEscapedNotThrown) {
  auto p = sample();
  p.filesystem.read_deny = {std::string("/tmp/bad\xff\xfe"), "/tmp/ok-\xc3\xa9"};
  auto j = policy_to_json(p);
  std::string dumped;
  ASSERT_NO_THROW(dumped = j.dump());
  EXPECT_EQ(j["filesystem"]["read_deny"][0], "/tmp/bad\\xFF\\xFE");
  EXPECT_EQ(j["filesystem"]["read_deny"][1], "/tmp/ok-\xc3\xa9");
  EXPECT_NO_THROW(policy_hash(p));
}

TEST(PolicyJson, ConvertsToPlainJson) {
  nlohmann::json plain = policy_to_json(sample());
  EXPECT_EQ(plain["workspace"], "/work/ws");
}

TEST(PolicyHash, IsSha256HexAndStable) {
  const std::string h = policy_hash(sample());
  EXPECT_TRUE(is_policy_hash(h)) << h;
  EXPECT_EQ(h, policy_hash(sample()));
  // Pinned (= sha256sum of the ExactCompactForm text): a change here breaks every recorded
  // policy_hash, so it must be deliberate.
  EffectivePolicy minimal;
  minimal.workspace = "/w";
  minimal.filesystem.write_allow = {"/w"};
  EXPECT_EQ(policy_hash(minimal),
            "sha256:ff2587b496c58a0d58c0db9b2596a3b67ebacdbe6da7dd16f5ecbc69bda37feb");
}

TEST(PolicyHash, ChangesWithEveryField) {
  std::vector<std::function<void(EffectivePolicy&)>> edits = {
      [](auto& p) { p.workspace = "/other"; },
      [](auto& p) { p.filesystem.read_deny.push_back("/x"); },
      [](auto& p) { p.filesystem.read_allow.clear(); },
      [](auto& p) { p.filesystem.write_allow.push_back("/tmp"); },
      [](auto& p) { p.filesystem.write_deny.clear(); },
      [](auto& p) { p.filesystem.read_only.push_back("/srv"); },
      [](auto& p) { p.network.mode = NetMode::all; },
      [](auto& p) { p.network.allow.push_back("x.org"); },
      [](auto& p) { p.network.deny.clear(); },
      [](auto& p) { p.network.allow_local_binding = true; },
      [](auto& p) { p.env.pass.push_back("TERM"); },
      [](auto& p) { p.env.set["CI"] = "0"; },
      [](auto& p) { p.limits.memory_bytes = 1; },
      [](auto& p) { p.limits.pids = 1; },
      [](auto& p) { p.limits.cpus = 1.0; },
      [](auto& p) { p.limits.timeout = std::chrono::milliseconds(1); },
      [](auto& p) { p.limits.output_bytes = 1; },
      [](auto& p) { p.process.seccomp = "strict"; },
      [](auto& p) { p.process.seccomp_base = "strict"; },
      [](auto& p) { p.process.seccomp_block.push_back("getcwd"); },
      [](auto& p) { p.process.allow_nested_userns = true; },
      // Moving an entry between lists must change the hash too.
      [](auto& p) {
        p.filesystem.read_only.push_back(p.filesystem.read_allow.back());
        p.filesystem.read_allow.pop_back();
      },
  };
  std::set<std::string> seen{policy_hash(sample())};
  for (std::size_t i = 0; i < edits.size(); ++i) {
    auto p = sample();
    edits[i](p);
    EXPECT_TRUE(seen.insert(policy_hash(p)).second) << "edit " << i << " did not change the hash";
  }
}

TEST(PolicyText, SummarisesEverySection) {
  auto p = sample();
  p.limits.memory_bytes = 2ULL << 30;
  p.limits.timeout = std::chrono::seconds(90);
  const std::string text = policy_to_text(p);
  for (const char* part :
       {"workspace: /work/ws", "read_deny:", "    /home/u/.ssh", "mode: allowlist", "    pypi.org",
        "CI=1", "memory: 2GiB (2147483648 bytes)", "timeout: 90s", "pids: unlimited", "read_only:",
        "process:", "seccomp: default", "allow_nested_userns: false"})
    EXPECT_NE(text.find(part), std::string::npos) << "missing \"" << part << "\" in\n" << text;
}

}  // namespace
}  // namespace corral
