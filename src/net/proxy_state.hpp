// The egress proxy's state, shared by its parts (egress_proxy.cpp: sessions and lifecycle,
// dns_responder.cpp). Private to src/net.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "net/egress_proxy.hpp"

namespace corral::net {

namespace asio = boost::asio;
using asio::awaitable;
using asio::ip::tcp;
using asio::ip::udp;
using boost::system::error_code;

struct EgressProxy::State {
  asio::io_context io{1};  // first member: destroyed last, after every socket
  HostRules rules;
  NameTable names;  // loop thread only
  std::vector<std::unique_ptr<tcp::acceptor>> acceptors;
  std::unique_ptr<udp::socket> dns;
  std::thread thread;
  bool stopped = false;

  mutable std::mutex mu;
  EgressReport report;

  static constexpr std::size_t kMaxRefusals = kMaxListedRefusals;
  std::uint64_t refusals_dropped = 0;

  void refuse(const std::string& host, std::uint16_t port, std::string reason) {
    std::lock_guard lock(mu);
    if (report.refusals.size() >= kMaxRefusals) {
      ++refusals_dropped;
      return;
    }
    report.refusals.push_back({std::chrono::system_clock::now(), host, port, std::move(reason)});
  }
  void count(const std::string& host) {
    std::lock_guard lock(mu);
    ++report.allowed[host];
  }
};

using State = EgressProxy::State;

// Completion token for coroutines: errors land in `ec` instead of exceptions.
inline auto ec_token(error_code& ec) { return asio::redirect_error(asio::use_awaitable, ec); }

// The sandbox's DNS responder on `sock` (UDP): runs until the socket closes.
awaitable<void> dns_loop(State& s, udp::socket& sock);
// The same over one TCP connection (RFC 1035 4.2.2: two-byte length prefixes).
awaitable<void> dns_tcp_session(State& s, tcp::socket sock);

}  // namespace corral::net
