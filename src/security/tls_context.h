#pragma once
// tls_context: the OpenSSL context of an SSL listener, built from its
// tls_config (Kafka's ssl.* keys) when the broker starts, so that a bad key,
// certificate or setting stops the broker with a message naming the key
// instead of failing each handshake.
//
//   keystore    ssl.keystore.type=PEM: ssl.keystore.location (a PEM file with
//               the private key and the certificate chain) or the inline
//               ssl.keystore.certificate.chain + ssl.keystore.key; an encrypted
//               key is opened with ssl.key.password (or ssl.keystore.password)
//   truststore  ssl.truststore.type=PEM: ssl.truststore.location or the inline
//               ssl.truststore.certificates; what client certificates must
//               chain to
//   client auth ssl.client.auth: none, requested (verified if sent), required
//   versions    ssl.enabled.protocols (TLSv1.2, TLSv1.3), capped by ssl.protocol
//   ciphers     ssl.cipher.suites by IANA name, as Java names them
#include <asio/ssl/context.hpp>
#include <asio/ssl/stream.hpp>
#include <memory>
#include <string>

#include "common/config/tls_config.h"
#include "common/result.h"

namespace samsa::security {

result<std::shared_ptr<asio::ssl::context>> make_server_context(const config::tls_config& c);

// This node as a TLS client of another node's SSL listener (replica fetches
// to the inter-broker listener, Raft and forwarding to the controller
// listener), with that listener's ssl.* settings as Kafka's inter-broker
// client takes them: the peer must chain to the truststore (the system's CAs
// without one) and, with ssl.endpoint.identification.algorithm=https, name
// the host connected to; the keystore, if any, is presented for
// ssl.client.auth.
struct client_tls {
    std::shared_ptr<asio::ssl::context> context;
    bool verify_hostname = true;
};
result<std::shared_ptr<const client_tls>> make_client_tls(const config::tls_config& c);

// The principal of a verified client certificate: its subject in RFC 2253
// form ("CN=writer,OU=apps,O=example") mapped by the listener's
// ssl.principal.mapping.rules (kept with its server context); "ANONYMOUS"
// without a certificate. An error naming the subject when no rule applies:
// the connection is refused, as Kafka refuses it.
result<std::string> principal_of(SSL* ssl);

}  // namespace samsa::security
