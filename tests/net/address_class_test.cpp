// Address classes for the DNS-rebinding check, and which rules may reach private addresses.
#include "net/address_class.hpp"

#include <gtest/gtest.h>

namespace corral::net {
namespace {

AddressClass cls(const char* text) { return classify(boost::asio::ip::make_address(text)); }

HostRule rule(const std::string& pattern) {
  auto r = parse_host_rule(pattern);
  EXPECT_TRUE(r.ok()) << pattern;
  return *r;
}

TEST(AddressClass, Ipv4) {
  EXPECT_EQ(cls("127.0.0.1"), AddressClass::loopback);
  EXPECT_EQ(cls("127.255.1.2"), AddressClass::loopback);
  EXPECT_EQ(cls("10.1.2.3"), AddressClass::private_net);
  EXPECT_EQ(cls("172.16.0.1"), AddressClass::private_net);
  EXPECT_EQ(cls("172.31.255.255"), AddressClass::private_net);
  EXPECT_EQ(cls("172.32.0.1"), AddressClass::global);
  EXPECT_EQ(cls("192.168.1.1"), AddressClass::private_net);
  EXPECT_EQ(cls("169.254.169.254"), AddressClass::link_local);
  EXPECT_EQ(cls("100.64.0.1"), AddressClass::shared);
  EXPECT_EQ(cls("100.128.0.1"), AddressClass::global);
  EXPECT_EQ(cls("0.0.0.0"), AddressClass::unspecified);
  EXPECT_EQ(cls("224.0.0.1"), AddressClass::multicast);
  EXPECT_EQ(cls("255.255.255.255"), AddressClass::multicast);
  EXPECT_EQ(cls("151.101.0.223"), AddressClass::global);
}

TEST(AddressClass, Ipv6) {
  EXPECT_EQ(cls("::1"), AddressClass::loopback);
  EXPECT_EQ(cls("::"), AddressClass::unspecified);
  EXPECT_EQ(cls("fe80::1"), AddressClass::link_local);
  EXPECT_EQ(cls("fd00::1"), AddressClass::unique_local);
  EXPECT_EQ(cls("fc12::1"), AddressClass::unique_local);
  EXPECT_EQ(cls("ff02::1"), AddressClass::multicast);
  EXPECT_EQ(cls("2a04:4e42::223"), AddressClass::global);
  // IPv4 inside IPv6 is classified as the IPv4 address.
  EXPECT_EQ(cls("::ffff:127.0.0.1"), AddressClass::loopback);
  EXPECT_EQ(cls("::ffff:169.254.169.254"), AddressClass::link_local);
  EXPECT_EQ(cls("::10.0.0.1"), AddressClass::private_net);
}

TEST(AddressClass, PrivateAddressesNeedARuleThatNamesThem) {
  auto loop = boost::asio::ip::make_address("127.0.0.1");
  auto loop6 = boost::asio::ip::make_address("::1");
  auto meta = boost::asio::ip::make_address("169.254.169.254");
  auto pub = boost::asio::ip::make_address("151.101.0.223");
  EXPECT_TRUE(address_permitted(rule("pypi.org"), pub));
  EXPECT_FALSE(address_permitted(rule("pypi.org"), loop));
  EXPECT_FALSE(address_permitted(rule("*.example.com"), meta));
  EXPECT_TRUE(address_permitted(rule("localhost:8080"), loop));
  EXPECT_TRUE(address_permitted(rule("localhost"), loop6));
  EXPECT_FALSE(address_permitted(rule("localhost"), meta));
  EXPECT_TRUE(address_permitted(rule("127.0.0.1:8080"), loop));
  EXPECT_TRUE(
      address_permitted(rule("127.0.0.1"), boost::asio::ip::make_address("::ffff:127.0.0.1")));
  EXPECT_FALSE(address_permitted(rule("127.0.0.1"), boost::asio::ip::make_address("127.0.0.2")));
  EXPECT_TRUE(address_permitted(rule("169.254.169.254:80"), meta));
  EXPECT_TRUE(address_permitted(rule("[::1]:80"), loop6));
}

}  // namespace
}  // namespace corral::net
