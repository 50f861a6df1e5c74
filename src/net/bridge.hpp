// The bridge between a sandbox and its egress proxy, without a relay process: the sandbox's
// child, right after bringing `lo` up in its new network namespace, opens the listening sockets
// this plan lists (they live in the sandbox's namespace) and passes them to the parent, whose
// proxy accepts on them and connects outward from the host's namespace.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "linux/fd.hpp"
#include "net/egress_proxy.hpp"
#include "net/host_rules.hpp"

namespace corral::net {

constexpr std::uint16_t kProxyPort = 3128;  // 127.0.0.1:3128 inside: HTTP, CONNECT and SOCKS5
constexpr const char* kProxyAddress = "127.0.0.1";
constexpr std::size_t kMaxNamedHosts = 32;   // names with their own synthetic address
constexpr std::size_t kSpareAddresses = 16;  // addresses for names matched by "*." rules
constexpr std::size_t kMaxListeners = 240;   // below SCM_MAX_FD (253): one message carries all

struct ListenSpec {
  std::uint32_t address = 0;  // IPv4, host byte order
  std::uint16_t port = 0;
  bool udp = false;
  enum class Role { proxy, dns, dns_tcp, transparent } role = Role::proxy;
};

struct BridgePlan {
  std::vector<ListenSpec> specs;         // proxy first, then DNS (UDP, TCP), then transparent ones
  NameTable names;                       // synthetic addresses of transparent mode
  std::vector<std::string> not_covered;  // names or rules transparent mode cannot serve
};

// Computes what to listen on for `rules`: the proxy port, DNS on 127.0.0.1:53, and for each
// allowed name (or spare address for wildcard rules) its ports. Pure.
BridgePlan make_bridge_plan(const HostRules& rules);

// Child side (after clone: no allocation). Opens every spec's socket into `fds` (sized like
// plan.specs). Returns 0 or an errno; on error the sockets opened so far are closed.
int open_bridge_sockets(const std::vector<ListenSpec>& specs, int* fds);

// Parent side: pairs the received descriptors (in spec order) with their roles.
Result<EgressListeners> assemble_listeners(const BridgePlan& plan, std::vector<UniqueFd> fds);

// The environment that points proxy-aware tools at the bridge (HTTP_PROXY, ALL_PROXY, NO_PROXY,
// pip, npm, git...).
std::map<std::string, std::string> proxy_environment();

// /etc/resolv.conf and /etc/hosts for inside the sandbox: the DNS responder, and loopback only.
std::string sandbox_resolv_conf();
std::string sandbox_hosts_file();

}  // namespace corral::net
