#pragma once
// sasl_client: this node's side of a SASL exchange (SaslHandshake, then
// SaslAuthenticate rounds), when it dials another node's SASL_PLAINTEXT or
// SASL_SSL listener with the inter-broker or controller mechanism:
//
//   PLAIN          one token, "\0username\0password" (RFC 4616)
//   SCRAM-SHA-*    client-first, client-final with the proof, and the
//                  server's signature checked (RFC 5802): a server that does
//                  not know the password cannot pass for one that does
//
//   auto c = make_sasl_client({"SCRAM-SHA-512", "broker", "secret"});
//   bytes token = c.value()->next({});          // the first token
//   ... send it; with the server's answer:
//   auto more = c.value()->next(server_token);  // until complete()
#include <memory>
#include <string>

#include "common/bytes.h"
#include "common/config/config_set.h"
#include "common/result.h"

namespace samsa::security::sasl {

struct sasl_credentials {
    std::string mechanism;  // PLAIN, SCRAM-SHA-256, SCRAM-SHA-512
    std::string username;
    std::string password;
    bool operator==(const sasl_credentials&) const = default;
};

class sasl_client {
  public:
    virtual ~sasl_client() = default;
    // The token to send next, given the server's last one (empty for the
    // first); an error when the server's answer is not what the mechanism
    // expects (the exchange is over).
    virtual result<bytes> next(bytes_view server_token) = 0;
    // Whether the server's last token completed the exchange.
    virtual bool complete() const = 0;
};

// INVALID_CONFIG for a mechanism this node cannot speak as a client.
result<std::unique_ptr<sasl_client>> make_sasl_client(const sasl_credentials& c);

// This node's own login for `mechanism` on `listener`, as a Kafka broker
// takes it for its inter-broker and controller connections: the username
// and password options of listener.name.<listener>.<mechanism>.sasl.jaas.config
// (PLAIN's PlainLoginModule, SCRAM's ScramLoginModule). INVALID_CONFIG,
// naming the key, when they are missing.
result<sasl_credentials> node_credentials(const config::config_set& values,
                                          const std::string& listener,
                                          const std::string& mechanism);

}  // namespace samsa::security::sasl
