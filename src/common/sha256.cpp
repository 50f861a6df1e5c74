// SHA-256 with nettle. OpenSSL 3's EVP API was used first; its provider initialisation cost
// more than a whole sandbox setup on every `corral run`.
#include "common/sha256.hpp"

#include <nettle/sha2.h>

namespace corral {

std::string sha256_hex(std::string_view data) {
  sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, data.size(), reinterpret_cast<const uint8_t*>(data.data()));
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof digest, digest);
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(2 * sizeof digest);
  for (uint8_t b : digest) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

}  // namespace corral
