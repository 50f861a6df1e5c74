// Netlink plumbing for the kernel audit log: status, a READLOG subscription, a marker record.
#include "linux/audit_log.hpp"

#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace corral::audit {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// One request to the kernel on a fresh unicast socket; `reply` (if any) receives the answer.
Result<void> request(std::uint16_t type, const void* payload, std::size_t len,
                     std::vector<char>* reply) {
  UniqueFd sock(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT));
  if (!sock.valid())
    return make_error(Errc::unsupported,
                      std::string("no kernel audit socket: ") + std::strerror(errno));
  std::vector<char> msg(NLMSG_SPACE(len), 0);
  auto* nh = reinterpret_cast<nlmsghdr*>(msg.data());
  nh->nlmsg_len = static_cast<std::uint32_t>(NLMSG_LENGTH(len));
  nh->nlmsg_type = type;
  nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  nh->nlmsg_seq = 1;
  if (len > 0) std::memcpy(NLMSG_DATA(nh), payload, len);
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (sendto(sock.get(), msg.data(), nh->nlmsg_len, 0, reinterpret_cast<sockaddr*>(&kernel),
             sizeof kernel) < 0)
    return make_error(Errc::unsupported,
                      std::string("the kernel audit socket refused a request: ") +
                          std::strerror(errno));
  // The answer (for AUDIT_GET) and the ACK, in either order; an error ACK fails the request.
  bool acked = false;
  for (int round = 0; round < 4; ++round) {
    pollfd p{sock.get(), POLLIN, 0};
    if (poll(&p, 1, 1000) <= 0)
      return make_error(Errc::unsupported, "the kernel audit socket did not answer");
    std::vector<char> buf(8192);
    ssize_t n = recv(sock.get(), buf.data(), buf.size(), 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error(Errc::unsupported, std::string("audit: ") + std::strerror(errno));
    }
    int remaining = static_cast<int>(n);
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf.data()); NLMSG_OK(h, remaining);
         h = NLMSG_NEXT(h, remaining)) {
      if (h->nlmsg_type == NLMSG_ERROR) {
        auto* e = static_cast<nlmsgerr*>(NLMSG_DATA(h));
        if (e->error != 0)
          return make_error(Errc::unsupported,
                            std::string("the kernel audit subsystem refused: ") +
                                std::strerror(-e->error));
        acked = true;
      } else if (h->nlmsg_type == type && reply) {
        reply->assign(static_cast<char*>(NLMSG_DATA(h)),
                      static_cast<char*>(NLMSG_DATA(h)) + NLMSG_PAYLOAD(h, 0));
      }
    }
    if (acked && (!reply || !reply->empty())) return {};
  }
  return make_error(Errc::unsupported, "the kernel audit socket answered out of turn");
}

}  // namespace

std::optional<Record> parse_record(int type, std::string_view text) {
  while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.remove_suffix(1);
  if (text.substr(0, 6) != "audit(") return std::nullopt;
  std::size_t close = text.find("): ");
  if (close == std::string_view::npos) return std::nullopt;
  Record r;
  r.type = type;
  r.serial = std::string(text.substr(6, close - 6));
  r.body = std::string(text.substr(close + 3));
  return r;
}

std::optional<std::string> field(std::string_view body, std::string_view key, bool may_be_hex) {
  std::size_t pos = 0;
  while (pos < body.size()) {
    // Each field starts at the beginning or after a space, as "key=".
    std::size_t at = body.find(key, pos);
    if (at == std::string_view::npos) return std::nullopt;
    pos = at + 1;
    if ((at > 0 && body[at - 1] != ' ') || at + key.size() >= body.size() ||
        body[at + key.size()] != '=')
      continue;
    std::string_view v = body.substr(at + key.size() + 1);
    if (!v.empty() && v.front() == '"') {
      std::size_t end = v.find('"', 1);
      if (end == std::string_view::npos) return std::nullopt;
      return std::string(v.substr(1, end - 1));
    }
    v = v.substr(0, v.find(' '));
    if (may_be_hex && !v.empty() && v.size() % 2 == 0) {
      std::string out;
      bool hex = true;
      for (std::size_t i = 0; i < v.size() && hex; i += 2) {
        int hi = hex_digit(v[i]), lo = hex_digit(v[i + 1]);
        hex = hi >= 0 && lo >= 0;
        out.push_back(static_cast<char>(hi * 16 + lo));
      }
      if (hex) return out;
    }
    return std::string(v);
  }
  return std::nullopt;
}

Result<Status> status() {
  std::vector<char> reply;
  if (auto r = request(AUDIT_GET, nullptr, 0, &reply); !r) return std::move(r).error();
  audit_status s{};
  std::memcpy(&s, reply.data(), std::min(reply.size(), sizeof s));
  return Status{s.enabled != 0, s.lost};
}

Result<Listener> Listener::open() {
  UniqueFd sock(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_AUDIT));
  if (!sock.valid())
    return make_error(Errc::unsupported,
                      std::string("this kernel has no audit socket: ") + std::strerror(errno));
  sockaddr_nl addr{};
  addr.nl_family = AF_NETLINK;
  addr.nl_groups = 1U << (AUDIT_NLGRP_READLOG - 1);
  if (bind(sock.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int e = errno;
    return make_error(Errc::unsupported,
                      e == EPERM ? std::string("reading the kernel audit log needs CAP_AUDIT_READ "
                                               "(root on the host)")
                                 : std::string("cannot listen to the kernel audit log: ") +
                                       std::strerror(e));
  }
  // A burst of denials must not overflow before we read: ask for a roomy buffer (capped by
  // net.core.rmem_max without CAP_NET_ADMIN).
  int bytes = 4 << 20;
  if (setsockopt(sock.get(), SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes) != 0)
    (void)setsockopt(sock.get(), SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
  return Listener(std::move(sock));
}

bool Listener::read_available(std::vector<Record>& out) {
  std::vector<char> buf(65536);
  // A bounded batch per call, so a flood cannot keep the caller's loop from its other work.
  for (int batch = 0; batch < 256; ++batch) {
    ssize_t n = recv(sock_.get(), buf.data(), buf.size(), MSG_TRUNC);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == ENOBUFS) {
        overflowed_ = true;
        continue;
      }
      break;  // EAGAIN: nothing more for now
    }
    if (static_cast<std::size_t>(n) > buf.size()) {
      overflowed_ = true;  // a record larger than any the kernel writes: count it as lost
      continue;
    }
    int remaining = static_cast<int>(n);
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf.data()); NLMSG_OK(h, remaining);
         h = NLMSG_NEXT(h, remaining)) {
      std::string_view text(static_cast<char*>(NLMSG_DATA(h)), NLMSG_PAYLOAD(h, 0));
      if (auto r = parse_record(h->nlmsg_type, text)) out.push_back(std::move(*r));
    }
  }
  return !overflowed_;
}

Result<void> Listener::send_marker(const std::string& token) {
  // The kernel overwrites a user message's last byte with NUL: send one.
  return request(kTrustedApp, token.c_str(), token.size() + 1, nullptr);
}

bool Listener::read_until_marker(const std::string& token, std::chrono::milliseconds timeout,
                                 std::vector<Record>& out) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t seen = out.size();
  for (;;) {
    read_available(out);
    for (; seen < out.size(); ++seen)
      if (out[seen].type == kTrustedApp && out[seen].body.find(token) != std::string::npos)
        return !overflowed_;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return false;
    pollfd p{sock_.get(), POLLIN, 0};
    (void)poll(&p, 1, static_cast<int>(left));
  }
}

}  // namespace corral::audit
