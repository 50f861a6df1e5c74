// Parsing of the request heads an HTTP proxy receives: CONNECT host:port, absolute-form
// requests (GET http://host/path), and origin-form requests with a Host header (transparent
// mode). Pure functions over bytes; the proxy does the I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace corral::net {

constexpr std::size_t kMaxHeadBytes = 64 * 1024;

// The length of the head including its final blank line, or 0 while it is incomplete.
std::size_t find_head_end(std::string_view buffer);

struct HttpRequestHead {
  std::string method;   // "GET", "CONNECT", ...
  std::string target;   // as sent
  std::string version;  // "HTTP/1.1"
  std::vector<std::pair<std::string, std::string>> headers;
  std::string host;  // where the request goes (normalized: lower case, no brackets)
  std::uint16_t port = 0;
  std::string path;  // origin-form target for the upstream ("/simple/?q"); empty for CONNECT
};

// "host", "host:port", "[v6]" or "[v6]:port". Errors say what is wrong with `authority`.
Result<std::pair<std::string, std::uint16_t>> split_authority(std::string_view authority,
                                                              std::uint16_t default_port);

// Parses a head (up to and including the blank line). Only http:// absolute targets are
// forwarded; an origin-form target needs a Host header (transparent mode).
Result<HttpRequestHead> parse_request_head(std::string_view head);

// The head to send upstream for a forwarded (non-CONNECT) request: origin-form target,
// hop-by-hop proxy headers dropped, and "Connection: close" so that one upstream connection
// carries the requests for one host only.
std::string upstream_head(const HttpRequestHead& request);

// A complete minimal response ("HTTP/1.1 403 Forbidden ...") with a one-line text body.
std::string simple_response(int status, std::string_view reason, std::string_view body);

}  // namespace corral::net
