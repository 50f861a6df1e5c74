// SOCKS5 greeting and request parsing.
#include "net/socks5.hpp"

#include <arpa/inet.h>

#include "net/host_rules.hpp"

namespace corral::net::socks5 {
namespace {
std::uint8_t byte(std::string_view b, std::size_t i) { return static_cast<std::uint8_t>(b[i]); }
}  // namespace

Parse parse_greeting(std::string_view b, Greeting& out) {
  if (b.size() < 2) return Parse::incomplete;
  if (byte(b, 0) != 5 || byte(b, 1) == 0) return Parse::bad;
  const std::size_t n = byte(b, 1);
  if (b.size() < 2 + n) return Parse::incomplete;
  out.no_auth_offered = false;
  for (std::size_t i = 0; i < n; ++i)
    out.no_auth_offered = out.no_auth_offered || byte(b, 2 + i) == 0;
  out.size = 2 + n;
  return Parse::ok;
}

Parse parse_request(std::string_view b, Request& out) {
  if (b.size() < 5) return Parse::incomplete;
  if (byte(b, 0) != 5 || byte(b, 2) != 0) {
    out.error = kGeneralFailure;
    return Parse::bad;
  }
  out.command = byte(b, 1);
  std::size_t addr_len = 0, addr_at = 4;
  switch (byte(b, 3)) {
    case 1:
      addr_len = 4;
      break;
    case 4:
      addr_len = 16;
      break;
    case 3:
      addr_len = byte(b, 4);
      addr_at = 5;
      break;
    default:
      out.error = kAddressTypeNotSupported;
      return Parse::bad;
  }
  if (b.size() < addr_at + addr_len + 2) return Parse::incomplete;
  std::string_view addr = b.substr(addr_at, addr_len);
  if (byte(b, 3) == 3) {
    if (addr_len == 0) {
      out.error = kGeneralFailure;
      return Parse::bad;
    }
    out.host = normalize_host(addr);
  } else {
    char text[INET6_ADDRSTRLEN];
    inet_ntop(addr_len == 4 ? AF_INET : AF_INET6, addr.data(), text, sizeof text);
    out.host = text;
  }
  out.port = static_cast<std::uint16_t>(byte(b, addr_at + addr_len) << 8 |
                                        byte(b, addr_at + addr_len + 1));
  out.size = addr_at + addr_len + 2;
  if (out.command != 1) {
    out.error = kCommandNotSupported;
    return Parse::bad;
  }
  if (out.port == 0) {
    out.error = kGeneralFailure;
    return Parse::bad;
  }
  return Parse::ok;
}

std::string reply(std::uint8_t code) {
  return std::string{5, static_cast<char>(code), 0, 1, 0, 0, 0, 0, 0, 0};
}

}  // namespace corral::net::socks5
