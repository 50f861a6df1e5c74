// ClientHello parsing, just far enough to find the server name (RFC 8446 4.1.2, RFC 6066 3).
#include "net/tls_sni.hpp"

#include <cctype>
#include <cstdint>

namespace corral::net::tls {
namespace {

// A cursor that fails (and stays failed) when asked for bytes it does not have.
struct Reader {
  std::string_view b;
  bool ok = true;
  std::size_t u8() {
    if (b.size() < 1) return ok = false, 0;
    std::size_t v = static_cast<std::uint8_t>(b[0]);
    b.remove_prefix(1);
    return v;
  }
  std::size_t u16() { return u8() << 8 | u8(); }
  std::size_t u24() { return u8() << 16 | u16(); }
  std::string_view take(std::size_t n) {
    if (!ok || b.size() < n) return ok = false, std::string_view();
    std::string_view v = b.substr(0, n);
    b.remove_prefix(n);
    return v;
  }
};

}  // namespace

Sni client_hello_sni(std::string_view bytes, std::string& name) {
  if (bytes.empty()) return Sni::incomplete;
  if (bytes[0] != 0x16) return Sni::not_tls;
  if (bytes.size() < 5) return Sni::incomplete;
  Reader rec{bytes.substr(1)};
  if (rec.u8() != 3) return Sni::not_tls;
  rec.u8();
  const std::size_t record_len = rec.u16();
  if (rec.b.size() < record_len) return Sni::incomplete;
  Reader hs{rec.b.substr(0, record_len)};
  if (hs.u8() != 1) return Sni::not_tls;  // not a ClientHello
  const std::size_t hello_len = hs.u24();
  // A ClientHello larger than its first record: read what the record holds.
  Reader h{hs.b.substr(0, hello_len)};
  h.take(2 + 32);   // legacy_version, random
  h.take(h.u8());   // legacy_session_id
  h.take(h.u16());  // cipher_suites
  h.take(h.u8());   // legacy_compression_methods
  if (!h.ok) return Sni::absent;
  if (h.b.empty()) return Sni::absent;  // no extensions
  Reader ext{h.take(h.u16())};
  if (!h.ok) ext = Reader{h.b};  // truncated by the record: use what there is
  while (ext.ok && !ext.b.empty()) {
    const std::size_t type = ext.u16();
    Reader body{ext.take(ext.u16())};
    if (!ext.ok) break;
    if (type != 0) continue;
    Reader list{body.take(body.u16())};
    while (list.ok && !list.b.empty()) {
      const std::size_t name_type = list.u8();
      std::string_view host = list.take(list.u16());
      if (!list.ok) break;
      if (name_type != 0) continue;
      name.clear();
      for (char c : host) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return Sni::found;
    }
  }
  return Sni::absent;
}

}  // namespace corral::net::tls
