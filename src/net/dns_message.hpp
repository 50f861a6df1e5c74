// The DNS messages the sandbox's DNS responder answers (RFC 1035): one question in, a response
// with zero or one A record out. Pure functions over bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace corral::net::dns {

constexpr std::uint16_t kTypeA = 1;
constexpr std::uint16_t kTypeAAAA = 28;
constexpr std::uint8_t kNoError = 0;
constexpr std::uint8_t kServFail = 2;
constexpr std::uint8_t kNxDomain = 3;
constexpr std::uint8_t kNotImplemented = 4;

struct Query {
  std::uint16_t id = 0;
  std::uint16_t flags = 0;
  std::string name;  // lower case, no trailing dot
  std::uint16_t qtype = 0;
  std::uint16_t qclass = 0;
  std::string_view question;  // the question section as sent (points into the message)
};

// A standard query with exactly one question; errors say what is wrong.
Result<Query> parse_query(std::string_view message);

// The response to `query`: `rcode`, and when `a` is given one A record (TTL 60 s).
std::string response(const Query& query, std::uint8_t rcode,
                     std::optional<std::array<std::uint8_t, 4>> a = std::nullopt);

}  // namespace corral::net::dns
