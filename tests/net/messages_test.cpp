// Parsers of what clients send the egress proxy: HTTP request heads (CONNECT, absolute-form,
// origin-form with Host), SOCKS5 greetings and requests, DNS queries; and what it answers.
#include <gtest/gtest.h>

#include "net/dns_message.hpp"
#include "net/http_head.hpp"
#include "net/socks5.hpp"
#include "net/tls_sni.hpp"

namespace corral::net {
namespace {

TEST(HttpHead, FindsTheEndOfTheHead) {
  EXPECT_EQ(find_head_end("GET / HTTP/1.1\r\nHost: a\r\n"), 0u);
  EXPECT_EQ(find_head_end("GET / HTTP/1.1\r\n\r\nbody"), 18u);
}

TEST(HttpHead, Connect) {
  auto r = parse_request_head("CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\n\r\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->method, "CONNECT");
  EXPECT_EQ(r->host, "pypi.org");
  EXPECT_EQ(r->port, 443);
  auto v6 = parse_request_head("CONNECT [::1]:8443 HTTP/1.1\r\n\r\n");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 8443);
  EXPECT_FALSE(parse_request_head("CONNECT pypi.org HTTP/1.1\r\n\r\n").ok());  // no port
  EXPECT_FALSE(parse_request_head("CONNECT pypi.org:0 HTTP/1.1\r\n\r\n").ok());
  EXPECT_FALSE(parse_request_head("CONNECT pypi.org:99999 HTTP/1.1\r\n\r\n").ok());
}

TEST(HttpHead, AbsoluteFormIsRewrittenForTheUpstream) {
  auto r = parse_request_head(
      "GET http://Files.Example.com:8080/a/b?c=d HTTP/1.1\r\nHost: files.example.com:8080\r\n"
      "Proxy-Connection: keep-alive\r\nAccept: */*\r\n\r\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->host, "files.example.com");
  EXPECT_EQ(r->port, 8080);
  EXPECT_EQ(r->path, "/a/b?c=d");
  std::string up = upstream_head(*r);
  EXPECT_EQ(up.rfind("GET /a/b?c=d HTTP/1.1\r\n", 0), 0u) << up;
  EXPECT_EQ(up.find("Proxy-Connection"), std::string::npos);
  EXPECT_NE(up.find("Accept: */*\r\n"), std::string::npos);
  EXPECT_NE(up.find("Connection: close\r\n\r\n"), std::string::npos);

  auto bare = parse_request_head("GET http://example.com HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->port, 80);
  EXPECT_EQ(bare->path, "/");
  EXPECT_NE(upstream_head(*bare).find("Host: example.com\r\n"), std::string::npos);

  // A Host header naming another host is replaced by the one the policy decided on.
  auto fronted = parse_request_head("GET http://allowed.org/ HTTP/1.1\r\nHost: evil.org\r\n\r\n");
  ASSERT_TRUE(fronted.ok());
  std::string up2 = upstream_head(*fronted);
  EXPECT_NE(up2.find("Host: allowed.org\r\n"), std::string::npos) << up2;
  EXPECT_EQ(up2.find("evil.org"), std::string::npos) << up2;
}

TEST(HttpHead, OriginFormUsesTheHostHeader) {
  auto r = parse_request_head("GET /simple/ HTTP/1.1\r\nhost: pypi.org\r\n\r\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->host, "pypi.org");
  EXPECT_EQ(r->port, 80);
  EXPECT_FALSE(parse_request_head("GET /simple/ HTTP/1.1\r\n\r\n").ok());
}

TEST(HttpHead, RefusesWhatItCannotForward) {
  for (const char* bad :
       {"GET https://pypi.org/ HTTP/1.1\r\n\r\n", "GET ftp://x/ HTTP/1.1\r\n\r\n",
        "GET http://user:pw@x/ HTTP/1.1\r\n\r\n", "GET  HTTP/1.1\r\n\r\n",
        "GET http://x/ HTTP/2\r\n\r\n", "GET http://x/ HTTP/1.1\r\nbad header\r\n\r\n",
        "GET http://a b/ HTTP/1.1\r\n\r\n", "G@T http://x/ HTTP/1.1\r\n\r\n"})
    EXPECT_FALSE(parse_request_head(bad).ok()) << bad;
}

TEST(Socks5, Greeting) {
  socks5::Greeting g;
  EXPECT_EQ(socks5::parse_greeting(std::string("\x05", 1), g), socks5::Parse::incomplete);
  EXPECT_EQ(socks5::parse_greeting(std::string("\x05\x02\x00", 3), g), socks5::Parse::incomplete);
  ASSERT_EQ(socks5::parse_greeting(std::string("\x05\x02\x02\x00", 4), g), socks5::Parse::ok);
  EXPECT_TRUE(g.no_auth_offered);
  EXPECT_EQ(g.size, 4u);
  ASSERT_EQ(socks5::parse_greeting(std::string("\x05\x01\x02", 3), g), socks5::Parse::ok);
  EXPECT_FALSE(g.no_auth_offered);
  EXPECT_EQ(socks5::parse_greeting(std::string("\x04\x01\x00", 3), g), socks5::Parse::bad);
}

TEST(Socks5, Requests) {
  socks5::Request r;
  std::string name = std::string("\x05\x01\x00\x03\x08PyPI.org\x01\xbb", 15);
  EXPECT_EQ(socks5::parse_request(name.substr(0, 10), r), socks5::Parse::incomplete);
  ASSERT_EQ(socks5::parse_request(name, r), socks5::Parse::ok);
  EXPECT_EQ(r.host, "pypi.org");
  EXPECT_EQ(r.port, 443);
  EXPECT_EQ(r.size, name.size());

  std::string v4 = std::string("\x05\x01\x00\x01\x7f\x00\x00\x01\x1f\x90", 10);
  ASSERT_EQ(socks5::parse_request(v4, r), socks5::Parse::ok);
  EXPECT_EQ(r.host, "127.0.0.1");
  EXPECT_EQ(r.port, 8080);

  std::string v6(22, '\0');
  v6[0] = 5;
  v6[1] = 1;
  v6[3] = 4;
  v6[19] = 1;
  v6[20] = 0;
  v6[21] = 80;
  ASSERT_EQ(socks5::parse_request(v6, r), socks5::Parse::ok);
  EXPECT_EQ(r.host, "::1");

  std::string bind = std::string("\x05\x02\x00\x01\x7f\x00\x00\x01\x1f\x90", 10);
  EXPECT_EQ(socks5::parse_request(bind, r), socks5::Parse::bad);
  EXPECT_EQ(r.error, socks5::kCommandNotSupported);
  std::string atyp = std::string("\x05\x01\x00\x09\x7f\x00\x00\x01\x1f\x90", 10);
  EXPECT_EQ(socks5::parse_request(atyp, r), socks5::Parse::bad);
  EXPECT_EQ(r.error, socks5::kAddressTypeNotSupported);
  EXPECT_EQ(socks5::reply(socks5::kNotAllowed), std::string("\x05\x02\x00\x01\0\0\0\0\0\0", 10));
}

std::string query(const std::string& name, std::uint16_t type) {
  std::string q = std::string("\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00", 12);
  std::size_t start = 0;
  while (true) {
    std::size_t dot = name.find('.', start);
    std::string label = name.substr(start, dot == std::string::npos ? dot : dot - start);
    q += static_cast<char>(label.size());
    q += label;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  q += '\0';
  q += static_cast<char>(type >> 8);
  q += static_cast<char>(type & 0xff);
  q += std::string("\x00\x01", 2);
  return q;
}

TEST(Dns, ParsesAQuestionAndAnswersIt) {
  std::string msg = query("PyPI.org", dns::kTypeA);
  auto q = dns::parse_query(msg);
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_EQ(q->id, 0x1234);
  EXPECT_EQ(q->name, "pypi.org");
  EXPECT_EQ(q->qtype, dns::kTypeA);

  std::string a = dns::response(*q, dns::kNoError, std::array<std::uint8_t, 4>{127, 0, 1, 1});
  ASSERT_EQ(a.size(), msg.size() + 16);
  EXPECT_EQ(a.substr(0, 2), "\x12\x34");
  EXPECT_EQ(static_cast<unsigned char>(a[2]) & 0x80, 0x80);  // a response
  EXPECT_EQ(static_cast<unsigned char>(a[3]) & 0x0f, 0);     // NOERROR
  EXPECT_EQ(a[7], 1);                                        // one answer
  EXPECT_EQ(a.substr(12, msg.size() - 12), msg.substr(12));  // the question, echoed
  EXPECT_EQ(a.substr(a.size() - 4), std::string("\x7f\x00\x01\x01", 4));

  std::string nx = dns::response(*q, dns::kNxDomain);
  EXPECT_EQ(static_cast<unsigned char>(nx[3]) & 0x0f, dns::kNxDomain);
  EXPECT_EQ(nx[7], 0);
}

TEST(Dns, RefusesMalformedQueries) {
  EXPECT_FALSE(dns::parse_query("short").ok());
  std::string msg = query("pypi.org", dns::kTypeA);
  std::string response_bit = msg;
  response_bit[2] = static_cast<char>(0x81);
  EXPECT_FALSE(dns::parse_query(response_bit).ok());
  EXPECT_FALSE(dns::parse_query(msg.substr(0, msg.size() - 3)).ok());
  std::string pointer = msg;
  pointer[12] = static_cast<char>(0xc0);
  EXPECT_FALSE(dns::parse_query(pointer).ok());
}

}  // namespace
}  // namespace corral::net

namespace corral::net {
namespace {

// A ClientHello as Python's ssl module sends it, with server_hostname "Evil.Example".
std::string client_hello(const std::string& host) {
  auto u16 = [](std::size_t v) {
    return std::string{static_cast<char>(v >> 8), static_cast<char>(v & 0xff)};
  };
  std::string sni_entry = std::string(1, '\0') + u16(host.size()) + host;
  std::string sni_ext = u16(0) + u16(sni_entry.size() + 2) + u16(sni_entry.size()) + sni_entry;
  std::string other_ext = u16(0x000b) + u16(2) + std::string("\x01\x00", 2);
  std::string exts = other_ext + sni_ext;
  std::string body = std::string("\x03\x03", 2) + std::string(32, 'r') + std::string(1, '\0') +
                     u16(2) + std::string("\x13\x01", 2) + std::string("\x01\x00", 2) +
                     u16(exts.size()) + exts;
  std::string hs = std::string(1, '\x01') + std::string(1, '\0') + u16(body.size()) + body;
  return std::string("\x16\x03\x01", 3) + u16(hs.size()) + hs;
}

TEST(TlsSni, FindsTheServerName) {
  std::string hello = client_hello("Evil.Example");
  std::string name;
  ASSERT_EQ(tls::client_hello_sni(hello, name), tls::Sni::found);
  EXPECT_EQ(name, "evil.example");
  EXPECT_EQ(tls::client_hello_sni(hello.substr(0, 3), name), tls::Sni::incomplete);
  EXPECT_EQ(tls::client_hello_sni(hello.substr(0, hello.size() - 1), name), tls::Sni::incomplete);
  EXPECT_EQ(tls::client_hello_sni("GET / HTTP/1.1\r\n", name), tls::Sni::not_tls);
  EXPECT_EQ(tls::client_hello_sni("SSH-2.0-OpenSSH_9.2\r\n", name), tls::Sni::not_tls);
}

TEST(TlsSni, GarbageIsNotAServerName) {
  std::string hello = client_hello("a.example");
  std::string name;
  for (std::size_t cut = 6; cut < hello.size(); cut += 7) {
    std::string broken = hello;
    broken[cut] =
        static_cast<char>(0xff);  // lengths that overrun: never a crash, never "found" garbage
    auto v = tls::client_hello_sni(broken, name);
    if (v == tls::Sni::found) {
      EXPECT_LE(name.size(), hello.size());
    }
  }
}

}  // namespace
}  // namespace corral::net
