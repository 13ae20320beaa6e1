#pragma once
// The security of the listeners, on both sides of a connection:
//
//  * check(): each SSL or SASL listener's TLS context and SASL settings, built
//    at start so that a bad key, certificate or JAAS config stops the broker
//    with a message naming the key;
//  * client_security_for(): how this node dials another node's controller or
//    inter-broker listener (TLS when that listener is SSL or SASL_SSL, a SASL
//    login when it is SASL_*);
//  * tls_reloader: a listener's keystore or truststore changed by a dynamic
//    config (AlterConfigs on this broker, as Kafka's KIP-226 reloads it)
//    takes effect for the connections accepted after it, with no restart.
#include <asio/ssl/context.hpp>
#include <map>
#include <memory>
#include <string>

#include "common/config/broker_config.h"
#include "common/config/tls_config.h"
#include "common/result.h"
#include "metadata/metadata_image.h"
#include "security/client_security.h"
#include "security/sasl/sasl_listener.h"

namespace samsa::server {

class listener;

namespace listener_security {

status check(
    const config::broker_config& cfg,
    std::map<std::string, std::shared_ptr<asio::ssl::context>>& contexts,
    std::map<std::string, std::shared_ptr<const security::sasl::sasl_listener_config>>& sasl);

// `controller`: the listener is the controller listener (its mechanism is
// sasl.mechanism.controller.protocol, PLAIN only).
result<std::shared_ptr<const security::client_security>> client_security_for(
    const config::broker_config& cfg, const std::string& listener, bool controller);

}  // namespace listener_security

class tls_reloader {
  public:
    explicit tls_reloader(const config::broker_config& cfg) : _cfg(cfg) {}

    // An SSL listener serving the settings it started with.
    void watch(listener& l);
    // On every new metadata image (the controller thread): when this broker's
    // dynamic configs changed, each watched listener whose TLS settings or
    // key and trust files changed gets a new context; one that does not load
    // keeps the old and says why (event=tls_reload_failed).
    void on_metadata(const metadata::metadata_image& prev, const metadata::metadata_image& next);

  private:
    struct watched {
        listener* l = nullptr;
        config::tls_config applied;
        std::string files;  // the key and trust files' sizes and times when loaded
    };
    const config::broker_config& _cfg;
    std::map<std::string, watched> _listeners;
};

}  // namespace samsa::server
