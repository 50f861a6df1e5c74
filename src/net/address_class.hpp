// Which addresses the egress proxy must not reach by name alone: loopback, link-local (cloud
// metadata included), private, shared (CGNAT), unique-local, unspecified and multicast. A name
// that resolves to one of them is refused unless a rule names that address (DNS rebinding).
#pragma once

#include <boost/asio/ip/address.hpp>
#include <string>

#include "net/host_rules.hpp"

namespace corral::net {

enum class AddressClass {
  global,
  loopback,      // 127/8, ::1
  link_local,    // 169.254/16 (169.254.169.254: cloud metadata), fe80::/10
  private_net,   // 10/8, 172.16/12, 192.168/16
  shared,        // 100.64/10 (carrier-grade NAT)
  unique_local,  // fc00::/7
  unspecified,   // 0.0.0.0/8, ::
  multicast,     // 224/4, 240/4 (reserved, broadcast), ff00::/8
};

// IPv4-mapped and IPv4-compatible IPv6 addresses are classified as the IPv4 address they carry.
AddressClass classify(const boost::asio::ip::address& address);
const char* address_class_name(AddressClass c);  // "loopback", "private", ...

// Whether the proxy may connect to `address` for a connection `rule` allowed. Global addresses
// always; the others only when the rule names that address literally, or names "localhost"
// and the address is loopback.
bool address_permitted(const HostRule& rule, const boost::asio::ip::address& address);

}  // namespace corral::net
