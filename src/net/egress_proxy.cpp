// The egress proxy's event loop: accept loops, the HTTP / CONNECT / SOCKS5 / transparent
// sessions, and the report. One io_context on one thread per proxy (DNS: dns_responder.cpp).
#include "net/egress_proxy.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "net/address_class.hpp"
#include "net/http_head.hpp"
#include "net/proxy_state.hpp"
#include "net/socks5.hpp"
#include "net/tls_sni.hpp"

namespace corral::net {

namespace {

constexpr std::size_t kPumpBuffer = 64 * 1024;

std::string host_port(const std::string& host, std::uint16_t port) {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
         std::to_string(port);
}

// Appends what the peer sent next to `buf`; false at EOF or error.
awaitable<bool> read_more(tcp::socket& sock, std::string& buf) {
  char tmp[4096];
  error_code ec;
  std::size_t n = co_await sock.async_read_some(asio::buffer(tmp), ec_token(ec));
  if (ec || n == 0) co_return false;
  buf.append(tmp, n);
  co_return true;
}

awaitable<void> write_all(tcp::socket& sock, std::string_view data) {
  error_code ec;
  co_await asio::async_write(sock, asio::buffer(data.data(), data.size()), ec_token(ec));
}

struct Connected {
  bool ok = false;
  bool refused = false;  // by policy (a private address): a violation
  std::string reason;
};

// Resolves `host` (the system resolver, /etc/hosts included) and connects to the first address
// the rule that allowed it permits. Private addresses a rule does not name are never tried.
awaitable<Connected> connect_upstream(State& s, const HostRule& rule, const std::string& host,
                                      std::uint16_t port, tcp::socket& up) {
  tcp::resolver resolver(s.io);
  error_code ec;
  // GCC 12 mishandles temporaries inside co_await / co_return expressions (double
  // destruction): every such operand in this file is a named variable.
  const std::string service = std::to_string(port);
  Connected out;
  auto results = co_await resolver.async_resolve(host, service, ec_token(ec));
  if (ec) {
    out.reason = "cannot resolve " + host + ": " + ec.message();
    co_return out;
  }
  std::vector<tcp::endpoint> permitted;
  std::string blocked;
  for (const auto& r : results) {
    const auto addr = r.endpoint().address();
    if (address_permitted(rule, addr)) {
      permitted.push_back(r.endpoint());
    } else if (blocked.empty()) {
      blocked = addr.to_string() + ", a " + address_class_name(classify(addr)) + " address";
    }
  }
  if (permitted.empty()) {
    out.refused = true;
    out.reason = host + " resolves to " + blocked +
                 "; only a rule naming that address (or localhost) allows it";
    co_return out;
  }
  for (const auto& ep : permitted) {
    up.close(ec);
    co_await up.async_connect(ep, ec_token(ec));
    if (!ec) {
      up.set_option(tcp::no_delay(true), ec);
      out.ok = true;
      co_return out;
    }
  }
  out.reason = "cannot connect to " + host_port(host, port) + ": " + ec.message();
  co_return out;
}

struct Link {
  tcp::socket a, b;
};

// Copies one direction until EOF (then half-closes the other side) or an error (then closes both).
// Moves bytes from `from` to `to` through a pipe with splice(2): the payload never enters user
// space. Returns false when splice is unavailable (nothing was moved then); `ec` is eof at the
// end of the stream, another error on failure.
awaitable<bool> splice_through_pipe(tcp::socket& from, tcp::socket& to, error_code& ec) {
  int p[2];
  if (pipe2(p, O_NONBLOCK | O_CLOEXEC) != 0) co_return false;
  UniqueFd pipe_out(p[0]), pipe_in(p[1]);
  from.native_non_blocking(true, ec);
  if (!ec) to.native_non_blocking(true, ec);
  if (ec) co_return false;
  constexpr std::size_t kChunk = 1 << 20;
  bool moved_any = false;
  while (true) {
    ssize_t in = splice(from.native_handle(), nullptr, pipe_in.get(), nullptr, kChunk,
                        SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (in == 0) {
      ec = asio::error::eof;
      co_return true;
    }
    if (in < 0) {
      if (errno == EINVAL && !moved_any) co_return false;  // no splice for this socket
      if (errno != EAGAIN) {
        ec = error_code(errno, boost::system::system_category());
        co_return true;
      }
      co_await from.async_wait(tcp::socket::wait_read, ec_token(ec));
      if (ec) co_return true;
      continue;
    }
    moved_any = true;
    while (in > 0) {
      ssize_t out = splice(pipe_out.get(), nullptr, to.native_handle(), nullptr,
                           static_cast<std::size_t>(in), SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (out < 0) {
        if (errno != EAGAIN) {
          ec = error_code(errno, boost::system::system_category());
          co_return true;
        }
        co_await to.async_wait(tcp::socket::wait_write, ec_token(ec));
        if (ec) co_return true;
        continue;
      }
      in -= out;
    }
  }
}

// Copies one direction until EOF (then half-closes the other side) or an error (then closes
// both). splice(2) when the kernel allows it, a user-space buffer otherwise.
awaitable<void> pump(std::shared_ptr<Link> link, bool a_to_b) {
  tcp::socket& from = a_to_b ? link->a : link->b;
  tcp::socket& to = a_to_b ? link->b : link->a;
  error_code ec;
  const bool spliced = co_await splice_through_pipe(from, to, ec);
  if (!spliced) {
    ec.clear();
    std::unique_ptr<char[]> buf(new char[kPumpBuffer]);
    while (true) {
      std::size_t n =
          co_await from.async_read_some(asio::buffer(buf.get(), kPumpBuffer), ec_token(ec));
      if (ec) break;
      co_await asio::async_write(to, asio::buffer(buf.get(), n), ec_token(ec));
      if (ec) break;
    }
  }
  error_code ignored;
  if (ec == asio::error::eof) {
    to.shutdown(tcp::socket::shutdown_send, ignored);
  } else {
    from.close(ignored);
    to.close(ignored);
  }
}

// Whether a tunnel's first bytes are an HTTP/1 request line ("GET /", "POST /"...).
bool looks_like_http(std::string_view b) {
  std::size_t i = 0;
  while (i < b.size() && i < 16 && b[i] >= 'A' && b[i] <= 'Z') ++i;
  return i > 0 && i < b.size() && b[i] == ' ';
}

// Client to upstream, but first: if the client opens with a TLS ClientHello, the server name
// it asks for must be allowed too, or a tunnel to an allowed host (a CDN) could reach another
// name behind it (domain fronting). Server-first protocols are unaffected: the other direction
// runs from the start.
awaitable<void> check_sni_then_pump(State& s, std::shared_ptr<Link> link, std::string host,
                                    std::uint16_t port, std::string first) {
  std::string sni;
  tls::Sni verdict = tls::client_hello_sni(first, sni);
  while (verdict == tls::Sni::incomplete && first.size() <= 16384 + 5) {
    if (!co_await read_more(link->a, first)) break;
    verdict = tls::client_hello_sni(first, sni);
  }
  // Plain HTTP through a tunnel: the first request's Host header, likewise.
  std::string asked = verdict == tls::Sni::found ? sni : std::string();
  const char* what = "TLS server name";
  if (verdict == tls::Sni::not_tls && looks_like_http(first)) {
    std::size_t end = 0;
    while ((end = find_head_end(first)) == 0 && first.size() <= kMaxHeadBytes)
      if (!co_await read_more(link->a, first)) break;
    if (end > 0) {
      auto head = parse_request_head(std::string_view(first).substr(0, end));
      if (head.ok() && head->target.front() == '/') asked = head->host;
      what = "HTTP Host";
    }
  }
  error_code ec;
  if (!asked.empty() && normalize_host(asked) != host) {
    Decision d = s.rules.decide(asked, port);
    if (!d.allowed) {
      s.refuse(asked, port,
               std::string(what) + " " + asked + " in a tunnel to " + host_port(host, port) + ": " +
                   d.reason);
      link->a.close(ec);
      link->b.close(ec);
      co_return;
    }
  }
  if (!first.empty()) {
    co_await asio::async_write(link->b, asio::buffer(first), ec_token(ec));
    if (ec) {
      link->a.close(ec);
      link->b.close(ec);
      co_return;
    }
  }
  if (verdict == tls::Sni::incomplete && first.size() <= 16384 + 5) {  // the client closed early
    link->b.shutdown(tcp::socket::shutdown_send, ec);
    co_return;
  }
  co_await pump(link, true);
}

// Relays between client and upstream until both directions are done. `tunnel`: the bytes are
// the client's own protocol (CONNECT, SOCKS5, transparent), so a TLS server name is checked.
// `early`: tunnel bytes the client sent along with its request.
void splice(State& s, tcp::socket client, tcp::socket upstream, bool tunnel = false,
            const std::string& host = {}, std::uint16_t port = 0, std::string early = {}) {
  auto link = std::make_shared<Link>(Link{std::move(client), std::move(upstream)});
  if (tunnel)
    asio::co_spawn(s.io, check_sni_then_pump(s, link, host, port, std::move(early)),
                   asio::detached);
  else
    asio::co_spawn(s.io, pump(link, true), asio::detached);
  asio::co_spawn(s.io, pump(link, false), asio::detached);
}

// Decides, connects and records; on success the upstream socket is connected. `deny` is
// called with the text to tell the client.
awaitable<std::optional<std::string>> open_allowed(State& s, const std::string& asked,
                                                   std::uint16_t port, tcp::socket& up,
                                                   bool& policy_refusal) {
  policy_refusal = false;
  // A client that resolved the name itself (socks5:// rather than socks5h://) asks for the
  // synthetic address the sandbox's DNS gave it: that stands for the name.
  auto synthetic = s.names.name_at.find(asked);
  const std::string host = synthetic != s.names.name_at.end() ? synthetic->second : asked;
  std::optional<std::string> failure;
  Decision d = s.rules.decide(host, port);
  if (!d.allowed) {
    policy_refusal = true;
    s.refuse(host, port, d.reason);
    failure = "connection to " + host_port(host, port) + " refused by corral: " + d.reason;
    co_return failure;
  }
  Connected c = co_await connect_upstream(s, *d.rule, host, port, up);
  if (c.refused) {
    policy_refusal = true;
    s.refuse(host, port, c.reason);
    failure = "connection to " + host_port(host, port) + " refused by corral: " + c.reason;
  } else if (!c.ok) {
    failure = c.reason;
  } else {
    s.count(host);
  }
  co_return failure;
}

awaitable<void> serve_http(State& s, tcp::socket client, std::string buf) {
  std::size_t head_len;
  while ((head_len = find_head_end(buf)) == 0) {
    if (buf.size() > kMaxHeadBytes) {
      const std::string answer =
          simple_response(431, "Request Header Fields Too Large", "corral: request head too large");
      co_await write_all(client, answer);
      co_return;
    }
    if (!co_await read_more(client, buf)) co_return;
  }
  auto req = parse_request_head(std::string_view(buf).substr(0, head_len));
  if (!req) {
    const std::string answer =
        simple_response(400, "Bad Request", "corral: " + req.error().message);
    co_await write_all(client, answer);
    co_return;
  }
  tcp::socket up(s.io);
  bool policy_refusal = false;
  auto failure = co_await open_allowed(s, req->host, req->port, up, policy_refusal);
  if (failure) {
    const std::string answer = policy_refusal
                                   ? simple_response(403, "Forbidden", *failure)
                                   : simple_response(502, "Bad Gateway", "corral: " + *failure);
    co_await write_all(client, answer);
    co_return;
  }
  if (req->method == "CONNECT") {
    const std::string_view established = "HTTP/1.1 200 Connection established\r\n\r\n";
    co_await write_all(client, established);
    buf.erase(0, head_len);  // early tunnel bytes: checked with the rest
    splice(s, std::move(client), std::move(up), true, req->host, req->port, std::move(buf));
    co_return;
  }
  std::string to_upstream = upstream_head(*req);
  to_upstream.append(buf, head_len, std::string::npos);
  co_await write_all(up, to_upstream);
  splice(s, std::move(client), std::move(up));
}

awaitable<void> serve_socks5(State& s, tcp::socket client, std::string buf) {
  socks5::Greeting greeting;
  socks5::Parse p;
  while ((p = socks5::parse_greeting(buf, greeting)) == socks5::Parse::incomplete)
    if (buf.size() > 512 || !co_await read_more(client, buf)) co_return;
  if (p == socks5::Parse::bad) co_return;
  if (!greeting.no_auth_offered) {
    const std::string_view no_method("\x05\xff", 2);
    co_await write_all(client, no_method);
    co_return;
  }
  const std::string_view no_auth("\x05\x00", 2);
  co_await write_all(client, no_auth);
  buf.erase(0, greeting.size);
  socks5::Request req;
  while ((p = socks5::parse_request(buf, req)) == socks5::Parse::incomplete)
    if (buf.size() > 512 || !co_await read_more(client, buf)) co_return;
  if (p == socks5::Parse::bad) {
    const std::string answer = socks5::reply(req.error);
    co_await write_all(client, answer);
    co_return;
  }
  tcp::socket up(s.io);
  bool policy_refusal = false;
  auto failure = co_await open_allowed(s, req.host, req.port, up, policy_refusal);
  if (failure) {
    const std::string answer =
        socks5::reply(policy_refusal ? socks5::kNotAllowed : socks5::kHostUnreachable);
    co_await write_all(client, answer);
    co_return;
  }
  const std::string succeeded = socks5::reply(socks5::kSucceeded);
  co_await write_all(client, succeeded);
  buf.erase(0, req.size);
  splice(s, std::move(client), std::move(up), true, req.host, req.port, std::move(buf));
}

// A client that speaks to the proxy port: SOCKS5 starts with byte 5, anything else is HTTP.
awaitable<void> serve_proxy_client(State& s, tcp::socket client) {
  std::string buf;
  if (!co_await read_more(client, buf)) co_return;
  if (buf[0] == 5) {
    co_await serve_socks5(s, std::move(client), std::move(buf));
  } else {
    co_await serve_http(s, std::move(client), std::move(buf));
  }
}

// A client that connected straight to a name's synthetic address (no proxy support): the
// address says which name, the port is the one it dialled.
awaitable<void> serve_transparent(State& s, tcp::socket client) {
  error_code ec;
  const tcp::endpoint local = client.local_endpoint(ec);
  if (ec) co_return;
  auto it = s.names.name_at.find(local.address().to_string());
  if (it == s.names.name_at.end()) co_return;
  const std::string host = it->second;
  tcp::socket up(s.io);
  bool policy_refusal = false;
  auto failure = co_await open_allowed(s, host, local.port(), up, policy_refusal);
  if (failure) co_return;  // the client sees the connection close
  splice(s, std::move(client), std::move(up), true, host, local.port());
}

enum class Service { proxy, transparent, dns };

awaitable<void> accept_loop(State& s, tcp::acceptor& acceptor, Service service) {
  asio::steady_timer backoff(s.io);
  while (true) {
    error_code ec;
    tcp::socket sock = co_await acceptor.async_accept(ec_token(ec));
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) co_return;
    if (ec) {  // EMFILE and friends: let descriptors free up instead of spinning
      backoff.expires_after(std::chrono::milliseconds(50));
      co_await backoff.async_wait(ec_token(ec));
      continue;
    }
    sock.set_option(tcp::no_delay(true), ec);
    switch (service) {
      case Service::proxy:
        asio::co_spawn(s.io, serve_proxy_client(s, std::move(sock)), asio::detached);
        break;
      case Service::transparent:
        asio::co_spawn(s.io, serve_transparent(s, std::move(sock)), asio::detached);
        break;
      case Service::dns:
        asio::co_spawn(s.io, dns_tcp_session(s, std::move(sock)), asio::detached);
        break;
    }
  }
}

}  // namespace

Result<std::unique_ptr<EgressProxy>> EgressProxy::start(HostRules rules, EgressListeners listeners,
                                                        NameTable names) {
  std::unique_ptr<EgressProxy> proxy(new EgressProxy());
  proxy->state_ = std::make_unique<State>();
  State& s = *proxy->state_;
  s.rules = std::move(rules);
  s.names = std::move(names);
  error_code ec;
  auto adopt = [&](UniqueFd& fd, Service service) -> Result<void> {
    auto acc = std::make_unique<tcp::acceptor>(s.io);
    acc->assign(tcp::v4(), fd.get(), ec);
    if (ec)
      return make_error(Errc::setup_failed,
                        "egress proxy: cannot adopt a listener: " + ec.message());
    fd.release();
    asio::co_spawn(s.io, accept_loop(s, *acc, service), asio::detached);
    s.acceptors.push_back(std::move(acc));
    return {};
  };
  for (auto& fd : listeners.proxy)
    if (auto r = adopt(fd, Service::proxy); !r) return std::move(r).error();
  for (auto& t : listeners.transparent)
    if (auto r = adopt(t.fd, Service::transparent); !r) return std::move(r).error();
  if (listeners.dns_tcp.valid())
    if (auto r = adopt(listeners.dns_tcp, Service::dns); !r) return std::move(r).error();
  if (listeners.dns_udp.valid()) {
    s.dns = std::make_unique<udp::socket>(s.io);
    s.dns->assign(udp::v4(), listeners.dns_udp.get(), ec);
    if (ec)
      return make_error(Errc::setup_failed,
                        "egress proxy: cannot adopt the DNS socket: " + ec.message());
    listeners.dns_udp.release();
    asio::co_spawn(s.io, dns_loop(s, *s.dns), asio::detached);
  }
  s.thread = std::thread([&s] {
    // A session that throws (allocation failure) must not take the sandbox's parent down.
    while (true) {
      try {
        s.io.run();
        return;
      } catch (...) {
      }
    }
  });
  return proxy;
}

void EgressProxy::stop() {
  if (!state_ || state_->stopped) return;
  state_->stopped = true;
  state_->io.stop();
  if (state_->thread.joinable()) state_->thread.join();
}

EgressProxy::~EgressProxy() {
  stop();
  if (state_) {
    // Sockets first: each belongs to the io_context, which must outlive them.
    state_->acceptors.clear();
    state_->dns.reset();
  }
}

std::vector<EgressRefusal> EgressProxy::take_refusals(std::uint64_t* unlisted) {
  std::lock_guard lock(state_->mu);
  std::vector<EgressRefusal> out = std::move(state_->report.refusals);
  state_->report.refusals.clear();
  *unlisted = state_->refusals_dropped;
  state_->refusals_dropped = 0;
  return out;
}

EgressReport EgressProxy::report() const {
  std::lock_guard lock(state_->mu);
  EgressReport out = state_->report;
  if (state_->refusals_dropped > 0)
    out.refusals.push_back({std::chrono::system_clock::now(), "*", 0,
                            std::to_string(state_->refusals_dropped) +
                                " more refusals not listed (the record keeps the first " +
                                std::to_string(State::kMaxRefusals) + ")"});
  return out;
}

}  // namespace corral::net
