// DNS query parsing and response building for the sandbox's DNS responder.
#include "net/dns_message.hpp"

#include <cctype>

namespace corral::net::dns {
namespace {

Error bad(std::string m) { return make_error(Errc::invalid_input, std::move(m)); }
std::uint16_t be16(std::string_view b, std::size_t i) {
  return static_cast<std::uint16_t>(static_cast<std::uint8_t>(b[i]) << 8 |
                                    static_cast<std::uint8_t>(b[i + 1]));
}
void put16(std::string& out, std::uint16_t v) {
  out += static_cast<char>(v >> 8);
  out += static_cast<char>(v & 0xff);
}

}  // namespace

Result<Query> parse_query(std::string_view m) {
  if (m.size() < 12) return bad("message shorter than a DNS header");
  Query q;
  q.id = be16(m, 0);
  q.flags = be16(m, 2);
  if (q.flags & 0x8000) return bad("not a query");
  if (((q.flags >> 11) & 0xf) != 0) return bad("not a standard query");
  if (be16(m, 4) != 1) return bad("not exactly one question");
  std::size_t i = 12;
  while (true) {
    if (i >= m.size()) return bad("truncated name");
    std::size_t len = static_cast<std::uint8_t>(m[i]);
    if (len == 0) {
      ++i;
      break;
    }
    if (len > 63) return bad("compressed or invalid label in the question");
    if (i + 1 + len > m.size()) return bad("truncated label");
    if (!q.name.empty()) q.name += '.';
    for (char c : m.substr(i + 1, len)) {
      if (c == '.' || static_cast<unsigned char>(c) < 0x21 || static_cast<unsigned char>(c) > 0x7e)
        return bad("invalid character in the name");
      q.name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (q.name.size() > 253) return bad("name too long");
    i += 1 + len;
  }
  if (i + 4 > m.size()) return bad("truncated question");
  q.qtype = be16(m, i);
  q.qclass = be16(m, i + 2);
  q.question = m.substr(12, i + 4 - 12);
  return q;
}

std::string response(const Query& q, std::uint8_t rcode,
                     std::optional<std::array<std::uint8_t, 4>> a) {
  std::string out;
  put16(out, q.id);
  // QR, the query's opcode and RD, RA (we recurse on its behalf), the rcode.
  put16(out, static_cast<std::uint16_t>(0x8000 | (q.flags & 0x7900) | 0x0080 | (rcode & 0xf)));
  put16(out, 1);
  put16(out, a ? 1 : 0);
  put16(out, 0);
  put16(out, 0);
  out.append(q.question);
  if (a) {
    put16(out, 0xc00c);  // the name: a pointer to the question's
    put16(out, kTypeA);
    put16(out, 1);  // IN
    put16(out, 0);
    put16(out, 60);  // TTL
    put16(out, 4);
    for (std::uint8_t b : *a) out += static_cast<char>(b);
  }
  return out;
}

}  // namespace corral::net::dns
