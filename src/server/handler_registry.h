#pragma once
// Every API Samsa serves, each with the versions its handler supports, per
// kind of listener. The lists are in handler_registry.cc; ApiVersions answers
// from them, so advertised and implemented versions cannot drift.
#include <span>
#include <string>
#include <vector>

#include "server/handler.h"

namespace samsa::server {

// Which listener a request came in on: Kafka serves a broker's APIs
// (KafkaApis) on client listeners and the controller's (ControllerApis) on
// controller.listener.names.
enum class listener_kind : uint8_t { client, controller };

class handler_registry {
  public:
    handler_registry();

    // The handler of `key` on that kind of listener, or nullptr when Kafka does
    // not serve the API there (the schemas' "listeners"). An API served on
    // both may have a handler of its own on each (Fetch: consumers and
    // followers on a client listener, the metadata quorum on a controller one).
    const api_handler* find(int16_t key, listener_kind listener) const;
    const api_handler* find(int16_t key, bool controller_listener) const {
        return find(key, controller_listener ? listener_kind::controller : listener_kind::client);
    }
    static bool served_on(int16_t key, bool controller_listener);
    // Every API served on that kind of listener, sorted by key: what
    // ApiVersions advertises there.
    std::span<const api_handler> all(listener_kind listener) const {
        return listener == listener_kind::controller ? _controller : _client;
    }

  private:
    std::vector<api_handler> _client;      // sorted by key
    std::vector<api_handler> _controller;  // sorted by key
};

}  // namespace samsa::server
