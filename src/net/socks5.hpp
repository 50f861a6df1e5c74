// SOCKS5 (RFC 1928) message parsing for the egress proxy: the greeting and the CONNECT request.
// Pure functions over bytes; only "no authentication" and CONNECT are supported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace corral::net::socks5 {

enum class Parse { incomplete, ok, bad };

// Reply codes (RFC 1928 section 6).
constexpr std::uint8_t kSucceeded = 0x00;
constexpr std::uint8_t kGeneralFailure = 0x01;
constexpr std::uint8_t kNotAllowed = 0x02;
constexpr std::uint8_t kHostUnreachable = 0x04;
constexpr std::uint8_t kConnectionRefused = 0x05;
constexpr std::uint8_t kCommandNotSupported = 0x07;
constexpr std::uint8_t kAddressTypeNotSupported = 0x08;

struct Greeting {
  bool no_auth_offered = false;
  std::size_t size = 0;  // bytes the greeting took
};
Parse parse_greeting(std::string_view bytes, Greeting& out);

struct Request {
  std::uint8_t command = 0;  // 1 CONNECT, 2 BIND, 3 UDP ASSOCIATE
  std::string host;          // a name, or an address in text form
  std::uint16_t port = 0;
  std::size_t size = 0;
  std::uint8_t error = 0;  // with Parse::bad: the reply code to send
};
Parse parse_request(std::string_view bytes, Request& out);

// A reply with the given code and a zero IPv4 bound address.
std::string reply(std::uint8_t code);

}  // namespace corral::net::socks5
