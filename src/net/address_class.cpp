// Address classes for the DNS-rebinding check.
#include "net/address_class.hpp"

namespace corral::net {
namespace {

using boost::asio::ip::address;
using boost::asio::ip::address_v4;
using boost::asio::ip::address_v6;

AddressClass classify_v4(const address_v4& a) {
  const auto b = a.to_bytes();
  if (b[0] == 127) return AddressClass::loopback;
  if (b[0] == 0) return AddressClass::unspecified;
  if (b[0] == 10) return AddressClass::private_net;
  if (b[0] == 172 && (b[1] & 0xf0) == 16) return AddressClass::private_net;
  if (b[0] == 192 && b[1] == 168) return AddressClass::private_net;
  if (b[0] == 169 && b[1] == 254) return AddressClass::link_local;
  if (b[0] == 100 && (b[1] & 0xc0) == 64) return AddressClass::shared;
  if (b[0] >= 224) return AddressClass::multicast;
  return AddressClass::global;
}

}  // namespace

AddressClass classify(const address& a) {
  if (a.is_v4()) return classify_v4(a.to_v4());
  const address_v6 v6 = a.to_v6();
  const auto b = v6.to_bytes();
  if (v6.is_v4_mapped())
    return classify_v4(boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, v6));
  bool first12_zero = true;
  for (int i = 0; i < 12; ++i) first12_zero = first12_zero && b[i] == 0;
  if (v6.is_loopback()) return AddressClass::loopback;
  if (v6.is_unspecified()) return AddressClass::unspecified;
  if (first12_zero) {  // deprecated IPv4-compatible ::a.b.c.d
    return classify_v4(address_v4(address_v4::bytes_type{b[12], b[13], b[14], b[15]}));
  }
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return AddressClass::link_local;
  if ((b[0] & 0xfe) == 0xfc) return AddressClass::unique_local;
  if (b[0] == 0xff) return AddressClass::multicast;
  return AddressClass::global;
}

const char* address_class_name(AddressClass c) {
  switch (c) {
    case AddressClass::global:
      return "global";
    case AddressClass::loopback:
      return "loopback";
    case AddressClass::link_local:
      return "link-local";
    case AddressClass::private_net:
      return "private";
    case AddressClass::shared:
      return "shared (CGNAT)";
    case AddressClass::unique_local:
      return "unique-local";
    case AddressClass::unspecified:
      return "unspecified";
    case AddressClass::multicast:
      return "multicast or reserved";
  }
  return "unknown";
}

bool address_permitted(const HostRule& rule, const address& a) {
  const AddressClass c = classify(a);
  if (c == AddressClass::global) return true;
  if (rule.wildcard) return false;
  if (rule.host == "localhost") return c == AddressClass::loopback;
  if (!rule.names_address) return false;
  boost::system::error_code ec;
  const address named = boost::asio::ip::make_address(rule.host, ec);
  if (ec) return false;
  if (named == a) return true;
  // The same address written as IPv4 and as IPv4-mapped IPv6.
  auto unmapped = [](const address& x) {
    if (x.is_v6() && x.to_v6().is_v4_mapped())
      return address(boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, x.to_v6()));
    return x;
  };
  return unmapped(named) == unmapped(a);
}

}  // namespace corral::net
