// The egress proxy of one sandbox: a host-side Boost.Asio event loop on its own thread that
// accepts on listening sockets created inside the sandbox's network namespace (net/bridge.hpp),
// decides every connection by host name and port (net/host_rules.hpp), resolves allowed names
// itself, refuses private addresses a rule does not name (net/address_class.hpp), and connects
// outward from the host's namespace. Refusals and per-host counts are kept for the run record.
// Nothing is process-global: each run (or persistent sandbox) owns its own instance.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "linux/fd.hpp"
#include "net/host_rules.hpp"

namespace corral::net {

// One refused connection or lookup.
struct EgressRefusal {
  std::chrono::system_clock::time_point time;
  std::string host;
  std::uint16_t port = 0;
  std::string reason;
};

// A command that retries a refused host in a loop must not grow the record without bound:
// past this many refusals only a count is kept, reported as one last refusal (host "*").
inline constexpr std::size_t kMaxListedRefusals = 1000;

struct EgressReport {
  std::vector<EgressRefusal> refusals;
  std::map<std::string, std::uint64_t> allowed;  // allowed connections per host name
};

// Sockets the proxy serves, all created (bound, listening) inside the sandbox's namespace.
struct EgressListeners {
  std::vector<UniqueFd> proxy;  // TCP: HTTP proxy, CONNECT and SOCKS5 (told apart by first byte)
  // Transparent mode: TCP listeners on a synthetic loopback address that stands for one name.
  struct Transparent {
    UniqueFd fd;
    std::string address;  // "127.0.1.7": what the DNS responder answers for the name
  };
  std::vector<Transparent> transparent;
  UniqueFd dns_udp;  // DNS over UDP (invalid: none)
  UniqueFd dns_tcp;  // DNS over TCP, same port (invalid: none)
};

// The synthetic address a name gets in transparent mode, shared by the DNS responder (which
// hands them out) and the transparent listeners (which learn the name back from it).
struct NameTable {
  std::map<std::string, std::string> address_of;  // name -> "127.0.1.N"
  std::map<std::string, std::string> name_at;     // "127.0.1.N" -> name
  std::vector<std::string> spare;                 // addresses for wildcard matches, in order
};

class EgressProxy {
 public:
  // Starts the loop thread. The listeners are taken over; rules and names are copied.
  static Result<std::unique_ptr<EgressProxy>> start(HostRules rules, EgressListeners listeners,
                                                    NameTable names);
  ~EgressProxy();  // stops and joins
  EgressProxy(const EgressProxy&) = delete;
  EgressProxy& operator=(const EgressProxy&) = delete;

  // Stops accepting, closes every connection, joins the thread. Idempotent.
  void stop();
  // What happened so far (safe while running).
  EgressReport report() const;
  // The refusals listed since the last call (or the start), handed over and forgotten, and how
  // many past the listing cap were only counted: for a proxy that lives as long as a
  // persistent sandbox, whose refusals are logged as they come.
  std::vector<EgressRefusal> take_refusals(std::uint64_t* unlisted);

  struct State;  // the loop and its sessions (egress_proxy.cpp)

 private:
  EgressProxy() = default;
  std::unique_ptr<State> state_;
};

}  // namespace corral::net
