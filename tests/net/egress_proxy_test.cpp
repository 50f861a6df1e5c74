// EgressProxy as a library (what persistent sandboxes reuse): listeners handed in, decisions
// made, refusals and counts reported, everything gone after stop(). Real sockets on loopback.
#include "net/egress_proxy.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace corral::net {
namespace {

// A listening TCP socket on 127.0.0.1, any port.
UniqueFd listen_loopback(std::uint16_t& port) {
  UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
  EXPECT_EQ(listen(fd.get(), 16), 0);
  socklen_t len = sizeof sa;
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&sa), &len);
  port = ntohs(sa.sin_port);
  return fd;
}

UniqueFd connect_loopback(std::uint16_t port) {
  UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = htons(port);
  EXPECT_EQ(connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
  return fd;
}

std::string read_until_close(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

std::string read_head(int fd) {
  std::string out;
  char c;
  while (out.find("\r\n\r\n") == std::string::npos && read(fd, &c, 1) == 1) out += c;
  return out;
}

void send_all(int fd, const std::string& s) {
  ASSERT_EQ(write(fd, s.data(), s.size()), static_cast<ssize_t>(s.size()));
}

HostRules rules(std::vector<std::string> allow) {
  Policy::Network n;
  n.mode = NetMode::allowlist;
  n.allow = std::move(allow);
  auto r = HostRules::from_policy(n);
  EXPECT_TRUE(r.ok());
  return *r;
}

class EgressProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_fd_ = listen_loopback(server_port_);
    // An upstream that answers each connection with "echo:" + the first line it reads.
    server_ = std::thread([fd = server_fd_.get()] {
      while (true) {
        int c = accept(fd, nullptr, nullptr);
        if (c < 0) return;
        std::string line;
        char ch;
        while (read(c, &ch, 1) == 1 && ch != '\n') line += ch;
        std::string reply = "echo:" + line + "\n";
        ssize_t w = write(c, reply.data(), reply.size());
        (void)w;
        close(c);
      }
    });
  }
  void TearDown() override {
    shutdown(server_fd_.get(), SHUT_RDWR);
    server_.join();
  }

  std::unique_ptr<EgressProxy> start(std::vector<std::string> allow, std::uint16_t& proxy_port) {
    EgressListeners listeners;
    listeners.proxy.push_back(listen_loopback(proxy_port));
    auto p = EgressProxy::start(rules(std::move(allow)), std::move(listeners), NameTable{});
    EXPECT_TRUE(p.ok());
    return std::move(*p);
  }

  UniqueFd server_fd_;
  std::uint16_t server_port_ = 0;
  std::thread server_;
};

TEST_F(EgressProxyTest, ConnectToAnAllowedAddressIsRelayedAndCounted) {
  std::uint16_t proxy_port = 0;
  auto proxy = start({"127.0.0.1:" + std::to_string(server_port_)}, proxy_port);
  UniqueFd c = connect_loopback(proxy_port);
  send_all(c.get(),
           "CONNECT 127.0.0.1:" + std::to_string(server_port_) + " HTTP/1.1\r\n\r\nping\n");
  EXPECT_EQ(read_head(c.get()), "HTTP/1.1 200 Connection established\r\n\r\n");
  EXPECT_EQ(read_until_close(c.get()), "echo:ping\n");
  proxy->stop();
  auto report = proxy->report();
  EXPECT_TRUE(report.refusals.empty());
  EXPECT_EQ(report.allowed["127.0.0.1"], 1u);
}

TEST_F(EgressProxyTest, RefusalsAreAnsweredAndReported) {
  // The server's port is not the allowed one: CONNECT gets 403, SOCKS5 "not allowed".
  // (Names resolving to private addresses: tests/integration/egress_test.cpp, with its own
  // /etc/hosts.)
  std::uint16_t proxy_port = 0;
  auto proxy = start({"127.0.0.1:1", "*.example.com"}, proxy_port);
  UniqueFd c = connect_loopback(proxy_port);
  send_all(c.get(), "CONNECT 127.0.0.1:" + std::to_string(server_port_) + " HTTP/1.1\r\n\r\n");
  EXPECT_EQ(read_until_close(c.get()).rfind("HTTP/1.1 403 Forbidden\r\n", 0), 0u);

  UniqueFd s = connect_loopback(proxy_port);
  std::string req("\x05\x01\x00", 3);
  send_all(s.get(), req);
  char method[2];
  ASSERT_EQ(read(s.get(), method, 2), 2);
  EXPECT_EQ(std::string(method, 2), std::string("\x05\x00", 2));
  std::string name = "example.com";  // "*." covers subdomains only
  std::string connect = std::string("\x05\x01\x00\x03", 4) + static_cast<char>(name.size()) + name +
                        static_cast<char>(server_port_ >> 8) +
                        static_cast<char>(server_port_ & 0xff);
  send_all(s.get(), connect);
  std::string reply = read_until_close(s.get());
  ASSERT_GE(reply.size(), 2u);
  EXPECT_EQ(reply[1], 0x02);  // connection not allowed by ruleset
  proxy->stop();
  auto report = proxy->report();
  ASSERT_EQ(report.refusals.size(), 2u);
  EXPECT_EQ(report.refusals[0].reason, "not in the allow list");
  EXPECT_EQ(report.refusals[1].host, "example.com");
  EXPECT_EQ(report.refusals[1].port, server_port_);
  EXPECT_TRUE(report.allowed.empty());
}

TEST_F(EgressProxyTest, StopClosesTheListeners) {
  std::uint16_t proxy_port = 0;
  auto proxy = start({"pypi.org"}, proxy_port);
  proxy->stop();
  proxy.reset();
  UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = htons(proxy_port);
  EXPECT_NE(connect(fd.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
}

}  // namespace
}  // namespace corral::net
