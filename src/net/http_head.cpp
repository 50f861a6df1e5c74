// HTTP/1.x request-head parsing for the egress proxy.
#include "net/http_head.hpp"

#include <cctype>
#include <charconv>

#include "net/host_rules.hpp"

namespace corral::net {
namespace {

Error bad(std::string message) { return make_error(Errc::invalid_input, std::move(message)); }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) &&
        std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos)
      return false;
  return true;
}

}  // namespace

std::size_t find_head_end(std::string_view buffer) {
  std::size_t pos = buffer.find("\r\n\r\n");
  return pos == std::string_view::npos ? 0 : pos + 4;
}

Result<std::pair<std::string, std::uint16_t>> split_authority(std::string_view authority,
                                                              std::uint16_t default_port) {
  if (authority.empty()) return bad("empty host");
  std::string_view host = authority, port;
  if (authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos)
      return bad("unterminated IPv6 address in \"" + std::string(authority) + "\"");
    host = authority.substr(0, close + 1);
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':')
        return bad("text after the IPv6 address in \"" + std::string(authority) + "\"");
      port = rest.substr(1);
    }
  } else if (std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  std::uint16_t p = default_port;
  if (!port.empty() || authority.back() == ':') {
    unsigned v = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), v);
    if (ec != std::errc() || end != port.data() + port.size() || v == 0 || v > 65535)
      return bad("invalid port in \"" + std::string(authority) + "\"");
    p = static_cast<std::uint16_t>(v);
  }
  std::string name = normalize_host(host);
  if (name.empty()) return bad("empty host in \"" + std::string(authority) + "\"");
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
          c == ':'))
      return bad("invalid host name \"" + std::string(host) + "\"");
  if (p == 0) return bad("no port in \"" + std::string(authority) + "\"");
  return std::pair{name, p};
}

Result<HttpRequestHead> parse_request_head(std::string_view head) {
  HttpRequestHead req;
  std::size_t eol = head.find("\r\n");
  if (eol == std::string_view::npos) return bad("incomplete request line");
  std::string_view line = head.substr(0, eol);
  std::size_t sp1 = line.find(' ');
  std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return bad("malformed request line");
  req.method = std::string(line.substr(0, sp1));
  req.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  req.version = std::string(line.substr(sp2 + 1));
  if (!is_token(req.method)) return bad("malformed method");
  if (req.version != "HTTP/1.1" && req.version != "HTTP/1.0")
    return bad("unsupported HTTP version");
  if (req.target.empty()) return bad("empty request target");

  std::string_view rest = head.substr(eol + 2);
  while (true) {
    std::size_t e = rest.find("\r\n");
    if (e == std::string_view::npos) return bad("incomplete header section");
    if (e == 0) break;
    std::string_view h = rest.substr(0, e);
    std::size_t colon = h.find(':');
    if (colon == std::string_view::npos || colon == 0 || !is_token(h.substr(0, colon)))
      return bad("malformed header line");
    req.headers.emplace_back(std::string(h.substr(0, colon)),
                             std::string(trim(h.substr(colon + 1))));
    rest = rest.substr(e + 2);
  }

  if (req.method == "CONNECT") {
    auto hp = split_authority(req.target, 0);
    if (!hp) return hp.error();
    req.host = hp->first;
    req.port = hp->second;
    return req;
  }
  std::string_view target = req.target;
  std::string_view authority;
  if (target.front() == '/') {  // origin-form: transparent mode, the Host header names it
    for (const auto& [k, v] : req.headers)
      if (iequals(k, "Host")) authority = v;
    if (authority.empty()) return bad("no Host header");
    req.path = std::string(target);
  } else {
    constexpr std::string_view kScheme = "http://";
    if (target.size() < kScheme.size() || !iequals(target.substr(0, kScheme.size()), kScheme))
      return bad("only http:// URLs can be forwarded; use CONNECT for https");
    target.remove_prefix(kScheme.size());
    std::size_t slash = target.find_first_of("/?#");
    authority = target.substr(0, slash);
    if (authority.find('@') != std::string_view::npos) return bad("credentials in the URL");
    req.path = slash == std::string_view::npos ? "/" : std::string(target.substr(slash));
    if (req.path.front() != '/') req.path.insert(0, "/");
  }
  auto hp = split_authority(authority, 80);
  if (!hp) return hp.error();
  req.host = hp->first;
  req.port = hp->second;
  return req;
}

std::string upstream_head(const HttpRequestHead& req) {
  std::string out = req.method + " " + req.path + " " + req.version + "\r\n";
  // The Host header is the one the policy decided on (RFC 9112 3.2.2: a proxy replaces it
  // with the target's authority), so a request cannot name one host and ask for another.
  bool v6 = req.host.find(':') != std::string::npos;
  out += "Host: " + (v6 ? "[" + req.host + "]" : req.host);
  if (req.port != 80) out += ":" + std::to_string(req.port);
  out += "\r\n";
  for (const auto& [k, v] : req.headers) {
    if (iequals(k, "Proxy-Connection") || iequals(k, "Proxy-Authorization") ||
        iequals(k, "Connection") || iequals(k, "Keep-Alive") || iequals(k, "Host"))
      continue;
    out += k + ": " + v + "\r\n";
  }
  out += "Connection: close\r\n\r\n";
  return out;
}

std::string simple_response(int status, std::string_view reason, std::string_view body) {
  std::string text = std::string(body) + "\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) +
         "\r\nContent-Type: text/plain\r\nContent-Length: " + std::to_string(text.size()) +
         "\r\nConnection: close\r\n\r\n" + text;
}

}  // namespace corral::net
