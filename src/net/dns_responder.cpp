// The sandbox's DNS: answers A queries for names the policy allows with the synthetic
// loopback address transparent mode listens on, AAAA and other types for them with no data, and
// every other name with NXDOMAIN, recorded as a refusal.
#include "net/dns_message.hpp"
#include "net/proxy_state.hpp"

namespace corral::net {
namespace {

std::string answer_dns(State& s, const dns::Query& q) {
  if (!s.rules.name_allowed(q.name)) {
    s.refuse(q.name, 53, "DNS lookup of a name not in the allow list");
    return dns::response(q, dns::kNxDomain);
  }
  if (q.qtype != dns::kTypeA || q.qclass != 1) return dns::response(q, dns::kNoError);
  auto it = s.names.address_of.find(q.name);
  if (it == s.names.address_of.end()) {
    if (s.names.spare.empty()) return dns::response(q, dns::kServFail);
    std::string addr = s.names.spare.front();
    s.names.spare.erase(s.names.spare.begin());
    s.names.name_at[addr] = q.name;
    it = s.names.address_of.emplace(q.name, addr).first;
  }
  error_code ec;
  auto a = asio::ip::make_address_v4(it->second, ec);
  if (ec) return dns::response(q, dns::kServFail);
  return dns::response(q, dns::kNoError, a.to_bytes());
}

}  // namespace

awaitable<void> dns_loop(State& s, udp::socket& sock) {
  std::unique_ptr<char[]> buf(new char[1500]);
  while (true) {
    udp::endpoint from;
    error_code ec;
    std::size_t n = co_await sock.async_receive_from(asio::buffer(buf.get(), 1500), from, ec_token(ec));
    if (ec == asio::error::operation_aborted || !sock.is_open()) co_return;
    if (ec) continue;
    auto q = dns::parse_query(std::string_view(buf.get(), n));
    if (!q) continue;  // not a query we can answer: drop, as a server would
    std::string reply = answer_dns(s, *q);
    co_await sock.async_send_to(asio::buffer(reply), from, ec_token(ec));
  }
}

}  // namespace corral::net
