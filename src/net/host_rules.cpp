// Host pattern matching for the egress proxy.
#include "net/host_rules.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

#include "policy/load.hpp"

namespace corral::net {
namespace {

bool is_ip_literal(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

std::string normalize_host(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  std::string out(host);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Result<HostRule> parse_host_rule(const std::string& pattern) {
  if (auto r = validate_host_pattern(pattern); !r) return r.error();
  HostRule rule;
  rule.text = pattern;
  std::string_view rest = pattern;
  std::string_view port;
  if (rest.front() == '[') {
    std::size_t close = rest.find(']');
    if (close + 1 < rest.size()) port = rest.substr(close + 2);
    rest = rest.substr(1, close - 1);
  } else if (std::size_t colon = rest.find(':'); colon != std::string_view::npos) {
    port = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  if (rest.substr(0, 2) == "*.") {
    rule.wildcard = true;
    rest.remove_prefix(2);
  }
  rule.host = normalize_host(rest);
  if (!port.empty()) rule.port = static_cast<std::uint16_t>(std::stoi(std::string(port)));
  rule.names_address = !rule.wildcard && is_ip_literal(rule.host);
  return rule;
}

bool rule_matches(const HostRule& rule, std::string_view name, std::uint16_t port) {
  if (rule.port && *rule.port != port) return false;
  if (!rule.wildcard) return name == rule.host;
  // "*.example.com" covers "a.example.com" and "a.b.example.com", not "example.com" itself,
  // and never an IP literal (a suffix of an address is not a domain).
  if (name.size() <= rule.host.size() + 1) return false;
  if (name.substr(name.size() - rule.host.size()) != rule.host) return false;
  if (name[name.size() - rule.host.size() - 1] != '.') return false;
  return !is_ip_literal(std::string(name));
}

Result<HostRules> HostRules::from_policy(const Policy::Network& network) {
  HostRules rules;
  for (const auto& p : network.allow) {
    auto r = parse_host_rule(p);
    if (!r) return r.error();
    rules.allow_.push_back(std::move(*r));
  }
  for (const auto& p : network.deny) {
    auto r = parse_host_rule(p);
    if (!r) return r.error();
    rules.deny_.push_back(std::move(*r));
  }
  return rules;
}

Decision HostRules::decide(std::string_view host, std::uint16_t port) const {
  const std::string name = normalize_host(host);
  Decision d;
  for (const auto& r : deny_) {
    if (rule_matches(r, name, port)) {
      d.rule = &r;
      d.reason = "denied by rule \"" + r.text + "\"";
      return d;
    }
  }
  for (const auto& r : allow_) {
    if (rule_matches(r, name, port)) {
      d.allowed = true;
      d.rule = &r;
      return d;
    }
  }
  d.reason = "not in the allow list";
  return d;
}

bool HostRules::name_allowed(std::string_view host) const {
  const std::string name = normalize_host(host);
  auto any_port = [&](const HostRule& r) {
    HostRule portless = r;
    portless.port.reset();
    return rule_matches(portless, name, 0);
  };
  // A name denied on every port is not answered; one denied on some ports still resolves.
  for (const auto& r : deny_)
    if (!r.port && any_port(r)) return false;
  return std::any_of(allow_.begin(), allow_.end(), any_port);
}

std::vector<std::uint16_t> HostRules::transparent_ports() const {
  std::vector<std::uint16_t> ports;
  for (const auto& r : allow_) {
    if (r.port) {
      ports.push_back(*r.port);
    } else {
      ports.push_back(80);
      ports.push_back(443);
    }
  }
  std::sort(ports.begin(), ports.end());
  ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
  return ports;
}

}  // namespace corral::net
