// The server name (SNI) of a TLS ClientHello, read from the first bytes a client sends through
// a tunnel: the proxy refuses a tunnel to an allowed host that asks for another name (domain
// fronting). Pure function over bytes.
#pragma once

#include <string>
#include <string_view>

namespace corral::net::tls {

enum class Sni {
  incomplete,  // looks like a ClientHello, more bytes needed
  not_tls,     // not a TLS handshake: nothing to check
  absent,      // a ClientHello without a server name
  found,
};

// Reads the host_name entry of the server_name extension of the ClientHello that starts
// `bytes` (first TLS record only). The name is lower-cased.
Sni client_hello_sni(std::string_view bytes, std::string& name);

}  // namespace corral::net::tls
