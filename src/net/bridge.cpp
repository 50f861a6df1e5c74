// The bridge plan, the child's listening sockets, and the environment that points at them.
#include "net/bridge.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

namespace corral::net {
namespace {

std::uint32_t v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  return static_cast<std::uint32_t>(a) << 24 | static_cast<std::uint32_t>(b) << 16 |
         static_cast<std::uint32_t>(c) << 8 | d;
}

std::string v4_text(std::uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 0xff) + "." +
         std::to_string((a >> 8) & 0xff) + "." + std::to_string(a & 0xff);
}

}  // namespace

BridgePlan make_bridge_plan(const HostRules& rules) {
  BridgePlan plan;
  const std::uint32_t loopback = v4(127, 0, 0, 1);
  plan.specs.push_back({loopback, kProxyPort, false, ListenSpec::Role::proxy});
  plan.specs.push_back({loopback, 53, true, ListenSpec::Role::dns});
  plan.specs.push_back({loopback, 53, false, ListenSpec::Role::dns_tcp});

  // Named hosts: each gets 127.0.1.N and listeners on the ports its allow rules give it.
  std::vector<std::string> names;
  for (const auto& r : rules.allow())
    if (!r.wildcard && !r.names_address && r.host != "localhost" &&
        std::find(names.begin(), names.end(), r.host) == names.end())
      names.push_back(r.host);
  std::uint32_t next = v4(127, 0, 1, 1);
  auto add_listeners = [&](std::uint32_t addr, const std::set<std::uint16_t>& ports) {
    for (std::uint16_t p : ports) {
      if (plan.specs.size() >= kMaxListeners) return false;
      plan.specs.push_back({addr, p, false, ListenSpec::Role::transparent});
    }
    return true;
  };
  for (const auto& name : names) {
    std::set<std::uint16_t> ports;
    for (const auto& r : rules.allow()) {
      HostRule any = r;
      any.port.reset();
      if (!rule_matches(any, name, 0)) continue;
      if (r.port) {
        ports.insert(*r.port);
      } else {
        ports.insert(80);
        ports.insert(443);
      }
    }
    if (plan.names.address_of.size() >= kMaxNamedHosts || !add_listeners(next, ports)) {
      plan.not_covered.push_back(name);
      continue;
    }
    plan.names.address_of[name] = v4_text(next);
    plan.names.name_at[v4_text(next)] = name;
    ++next;
  }
  // Wildcard rules: a few spare addresses, handed out by the DNS responder as names come.
  bool any_wildcard = std::any_of(rules.allow().begin(), rules.allow().end(),
                                  [](const HostRule& r) { return r.wildcard; });
  if (any_wildcard) {
    std::set<std::uint16_t> ports;
    for (std::uint16_t p : rules.transparent_ports()) ports.insert(p);
    for (std::size_t i = 0; i < kSpareAddresses; ++i) {
      std::uint32_t addr = v4(127, 0, 2, static_cast<std::uint8_t>(i + 1));
      if (!add_listeners(addr, ports)) break;
      plan.names.spare.push_back(v4_text(addr));
    }
  }
  for (const auto& r : rules.allow())
    if (r.names_address || r.host == "localhost") plan.not_covered.push_back(r.text);
  return plan;
}

int open_bridge_sockets(const std::vector<ListenSpec>& specs, int* fds) {
  for (std::size_t i = 0; i < specs.size(); ++i) fds[i] = -1;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const ListenSpec& s = specs[i];
    int fd = socket(AF_INET, (s.udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
    int err = fd < 0 ? errno : 0;
    if (!err) {
      int one = 1;
      setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      sockaddr_in sa;
      std::memset(&sa, 0, sizeof sa);
      sa.sin_family = AF_INET;
      sa.sin_port = htons(s.port);
      sa.sin_addr.s_addr = htonl(s.address);
      if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) err = errno;
      if (!err && !s.udp && listen(fd, 4096) != 0) err = errno;
    }
    if (err) {
      if (fd >= 0) close(fd);
      for (std::size_t j = 0; j < i; ++j) close(fds[j]);
      return err;
    }
    fds[i] = fd;
  }
  return 0;
}

Result<EgressListeners> assemble_listeners(const BridgePlan& plan, std::vector<UniqueFd> fds) {
  if (fds.size() != plan.specs.size())
    return make_error(Errc::setup_failed,
                      "egress bridge: expected " + std::to_string(plan.specs.size()) +
                          " listening sockets from the sandbox, got " + std::to_string(fds.size()));
  EgressListeners out;
  for (std::size_t i = 0; i < fds.size(); ++i) {
    const ListenSpec& s = plan.specs[i];
    switch (s.role) {
      case ListenSpec::Role::proxy:
        out.proxy.push_back(std::move(fds[i]));
        break;
      case ListenSpec::Role::dns:
        out.dns_udp = std::move(fds[i]);
        break;
      case ListenSpec::Role::dns_tcp:
        out.dns_tcp = std::move(fds[i]);
        break;
      case ListenSpec::Role::transparent:
        out.transparent.push_back({std::move(fds[i]), v4_text(s.address)});
        break;
    }
  }
  return out;
}

std::map<std::string, std::string> proxy_environment() {
  const std::string http =
      "http://" + std::string(kProxyAddress) + ":" + std::to_string(kProxyPort);
  // socks5h: the proxy resolves names, so the policy sees them (not addresses).
  const std::string socks =
      "socks5h://" + std::string(kProxyAddress) + ":" + std::to_string(kProxyPort);
  const std::string no_proxy = "localhost,127.0.0.1,::1";
  return {
      {"HTTP_PROXY", http},
      {"http_proxy", http},
      {"HTTPS_PROXY", http},
      {"https_proxy", http},
      {"ALL_PROXY", socks},
      {"all_proxy", socks},
      {"NO_PROXY", no_proxy},
      {"no_proxy", no_proxy},
      {"PIP_PROXY", http},
      {"npm_config_proxy", http},
      {"npm_config_https_proxy", http},
      {"GIT_CONFIG_COUNT", "1"},
      {"GIT_CONFIG_KEY_0", "http.proxy"},
      {"GIT_CONFIG_VALUE_0", http},
  };
}

std::string sandbox_resolv_conf() {
  return "# corral: the sandbox's DNS answers only names its network policy allows\n"
         "nameserver 127.0.0.1\n"
         "options ndots:0 attempts:1 timeout:2\n";
}

std::string sandbox_hosts_file() {
  return "127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n";
}

}  // namespace corral::net
