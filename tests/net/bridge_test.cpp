// The bridge plan: what the sandbox's child listens on for a given allow list.
#include "net/bridge.hpp"

#include <gtest/gtest.h>

namespace corral::net {
namespace {

HostRules rules(std::vector<std::string> allow) {
  Policy::Network n;
  n.mode = NetMode::allowlist;
  n.allow = std::move(allow);
  auto r = HostRules::from_policy(n);
  EXPECT_TRUE(r.ok());
  return *r;
}

std::string describe(const ListenSpec& s) {
  return std::to_string(s.address >> 24) + "." + std::to_string((s.address >> 16) & 0xff) + "." +
         std::to_string((s.address >> 8) & 0xff) + "." + std::to_string(s.address & 0xff) + ":" +
         std::to_string(s.port) + (s.udp ? "/udp" : "");
}

TEST(BridgePlan, ProxyDnsAndOneAddressPerName) {
  auto plan = make_bridge_plan(rules(
      {"pypi.org", "files.pythonhosted.org:443", "pypi.org:8443", "127.0.0.1:9000", "localhost"}));
  std::vector<std::string> got;
  for (const auto& s : plan.specs) got.push_back(describe(s));
  EXPECT_EQ(got, (std::vector<std::string>{"127.0.0.1:3128", "127.0.0.1:53/udp", "127.0.0.1:53",
                                           "127.0.1.1:80", "127.0.1.1:443", "127.0.1.1:8443",
                                           "127.0.1.2:443"}));
  EXPECT_EQ(plan.names.address_of.at("pypi.org"), "127.0.1.1");
  EXPECT_EQ(plan.names.name_at.at("127.0.1.2"), "files.pythonhosted.org");
  EXPECT_TRUE(plan.names.spare.empty());
  EXPECT_EQ(plan.not_covered, (std::vector<std::string>{"127.0.0.1:9000", "localhost"}));
}

TEST(BridgePlan, WildcardsGetSpareAddresses) {
  auto plan = make_bridge_plan(rules({"*.github.com:443"}));
  ASSERT_EQ(plan.names.spare.size(), kSpareAddresses);
  EXPECT_EQ(plan.names.spare[0], "127.0.2.1");
  EXPECT_EQ(plan.specs.size(), 3 + kSpareAddresses);
  EXPECT_EQ(describe(plan.specs.back()), "127.0.2.16:443");
}

TEST(BridgePlan, StaysUnderOneMessageOfDescriptors) {
  std::vector<std::string> many;
  for (int i = 0; i < 200; ++i) many.push_back("h" + std::to_string(i) + ".example.com");
  many.push_back("*.example.org");
  auto plan = make_bridge_plan(rules(many));
  EXPECT_LE(plan.specs.size(), kMaxListeners);
  EXPECT_EQ(plan.names.address_of.size(), kMaxNamedHosts);
  EXPECT_EQ(plan.not_covered.size(), 200 - kMaxNamedHosts);
}

TEST(ProxyEnvironment, EveryToolPointsAtTheBridge) {
  auto env = proxy_environment();
  for (const char* k : {"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "PIP_PROXY",
                        "npm_config_proxy", "npm_config_https_proxy", "GIT_CONFIG_VALUE_0"})
    EXPECT_EQ(env.at(k), "http://127.0.0.1:3128") << k;
  EXPECT_EQ(env.at("ALL_PROXY"), "socks5h://127.0.0.1:3128");
  EXPECT_EQ(env.at("NO_PROXY"), "localhost,127.0.0.1,::1");
}

}  // namespace
}  // namespace corral::net
