// The egress policy as a matcher: allow and deny host patterns ("host", "*.suffix", optional
// ":port"), deny first. Pure logic; the proxy asks it about every connection and lookup.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "policy/policy.hpp"

namespace corral::net {

struct HostRule {
  std::string text;                   // the pattern as written, for messages
  std::string host;                   // lower case, without "*." and without brackets
  bool wildcard = false;              // "*.suffix": any name strictly below `host`
  std::optional<std::uint16_t> port;  // none: any port
  bool names_address = false;         // `host` is an IP literal
};

// Parses one pattern (validated by policy/patterns first). Errors name the pattern.
Result<HostRule> parse_host_rule(const std::string& pattern);

// Lower case, trailing dot removed, brackets around an IPv6 literal removed.
std::string normalize_host(std::string_view host);

// Whether `rule` covers host `name` (normalized) on `port`.
bool rule_matches(const HostRule& rule, std::string_view name, std::uint16_t port);

struct Decision {
  bool allowed = false;
  const HostRule* rule = nullptr;  // the rule that decided (deny or allow); null: no rule matched
  std::string reason;              // why it was refused (empty when allowed)
};

class HostRules {
 public:
  static Result<HostRules> from_policy(const Policy::Network& network);
  HostRules() = default;

  // deny rules first, then allow rules; nothing matched means refused.
  Decision decide(std::string_view host, std::uint16_t port) const;
  // Whether `name` is allowed on some port (used to answer DNS lookups).
  bool name_allowed(std::string_view name) const;
  // The ports a name the policy allows can be reached on without a proxy (transparent mode):
  // every explicit rule port, plus 80 and 443 for rules without one. Sorted, unique.
  std::vector<std::uint16_t> transparent_ports() const;

  const std::vector<HostRule>& allow() const { return allow_; }
  const std::vector<HostRule>& deny() const { return deny_; }

 private:
  std::vector<HostRule> allow_, deny_;
};

}  // namespace corral::net
