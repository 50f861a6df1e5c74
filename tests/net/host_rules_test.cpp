// The allow/deny matcher: exact names, "*." suffixes, ports, deny first, malformed patterns.
#include "net/host_rules.hpp"

#include <gtest/gtest.h>

namespace corral::net {
namespace {

HostRules rules(std::vector<std::string> allow, std::vector<std::string> deny = {}) {
  Policy::Network n;
  n.mode = NetMode::allowlist;
  n.allow = std::move(allow);
  n.deny = std::move(deny);
  auto r = HostRules::from_policy(n);
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : HostRules();
}

TEST(HostRules, ExactNameAnyPortWithoutAPort) {
  auto r = rules({"pypi.org"});
  EXPECT_TRUE(r.decide("pypi.org", 443).allowed);
  EXPECT_TRUE(r.decide("PyPI.org.", 80).allowed);  // case and a trailing dot do not matter
  EXPECT_FALSE(r.decide("files.pypi.org", 443).allowed);
  EXPECT_FALSE(r.decide("evilpypi.org", 443).allowed);
  EXPECT_EQ(r.decide("example.com", 443).reason, "not in the allow list");
}

TEST(HostRules, WildcardCoversSubdomainsOnly) {
  auto r = rules({"*.github.com"});
  EXPECT_TRUE(r.decide("api.github.com", 443).allowed);
  EXPECT_TRUE(r.decide("a.b.github.com", 22).allowed);
  EXPECT_FALSE(r.decide("github.com", 443).allowed);
  EXPECT_FALSE(r.decide("notgithub.com", 443).allowed);
  EXPECT_FALSE(r.decide("github.com.evil.org", 443).allowed);
}

TEST(HostRules, PortRules) {
  auto r = rules({"example.com:443", "*.example.org:8080"});
  EXPECT_TRUE(r.decide("example.com", 443).allowed);
  EXPECT_FALSE(r.decide("example.com", 80).allowed);
  EXPECT_TRUE(r.decide("a.example.org", 8080).allowed);
  EXPECT_FALSE(r.decide("a.example.org", 443).allowed);
}

TEST(HostRules, DenyWinsOverAllow) {
  auto r = rules({"*.example.com"}, {"secret.example.com", "*.example.com:22"});
  EXPECT_TRUE(r.decide("www.example.com", 443).allowed);
  auto d = r.decide("secret.example.com", 443);
  EXPECT_FALSE(d.allowed);
  EXPECT_NE(d.reason.find("secret.example.com"), std::string::npos) << d.reason;
  EXPECT_FALSE(r.decide("www.example.com", 22).allowed);
  EXPECT_FALSE(r.name_allowed("secret.example.com"));
  EXPECT_TRUE(r.name_allowed("www.example.com"));  // denied on port 22 only
}

TEST(HostRules, WildcardNeverMatchesAnAddress) {
  auto r = rules({"*.0.0.1"});
  EXPECT_FALSE(r.decide("127.0.0.1", 80).allowed);
}

TEST(HostRules, AddressesAndIpv6) {
  auto r = rules({"127.0.0.1:8080", "[::1]:9000"});
  EXPECT_TRUE(r.decide("127.0.0.1", 8080).allowed);
  EXPECT_TRUE(r.decide("[::1]", 9000).allowed);
  EXPECT_TRUE(r.allow()[0].names_address);
  EXPECT_FALSE(r.decide("::1", 8080).allowed);
}

TEST(HostRules, MalformedPatternsNameThePattern) {
  for (std::string bad : {"http://pypi.org", "pypi.org:0", "py*pi.org", "pypi..org", "a b", "",
                          "pypi.org:99999", "[::1"}) {
    Policy::Network n;
    n.mode = NetMode::allowlist;
    n.allow = {bad};
    auto r = HostRules::from_policy(n);
    ASSERT_FALSE(r.ok()) << bad;
    if (!bad.empty()) {
      EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
    }
  }
}

TEST(HostRules, TransparentPorts) {
  auto r = rules({"pypi.org", "example.com:8443"});
  EXPECT_EQ(r.transparent_ports(), (std::vector<std::uint16_t>{80, 443, 8443}));
}

}  // namespace
}  // namespace corral::net
