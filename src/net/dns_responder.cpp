// The sandbox's DNS: answers A queries for names the policy allows with the synthetic
// loopback address transparent mode listens on, AAAA and other types for them with no data, and
// every other name with NXDOMAIN, recorded as a refusal.
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

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
    std::size_t n =
        co_await sock.async_receive_from(asio::buffer(buf.get(), 1500), from, ec_token(ec));
    if (ec == asio::error::operation_aborted || !sock.is_open()) co_return;
    if (ec) continue;
    auto q = dns::parse_query(std::string_view(buf.get(), n));
    if (!q) continue;  // not a query we can answer: drop, as a server would
    std::string reply = answer_dns(s, *q);
    co_await sock.async_send_to(asio::buffer(reply), from, ec_token(ec));
  }
}

awaitable<void> dns_tcp_session(State& s, tcp::socket sock) {
  while (true) {
    unsigned char len_bytes[2];
    error_code ec;
    co_await asio::async_read(sock, asio::buffer(len_bytes, 2), ec_token(ec));
    if (ec) co_return;
    std::string msg(static_cast<std::size_t>(len_bytes[0] << 8 | len_bytes[1]), '\0');
    co_await asio::async_read(sock, asio::buffer(msg), ec_token(ec));
    if (ec) co_return;
    auto q = dns::parse_query(msg);
    if (!q) co_return;
    std::string reply = answer_dns(s, *q);
    reply.insert(0, 1, static_cast<char>(reply.size() & 0xff));
    reply.insert(0, 1, static_cast<char>((reply.size() - 1) >> 8));
    co_await asio::async_write(sock, asio::buffer(reply), ec_token(ec));
    if (ec) co_return;
  }
}

}  // namespace corral::net
