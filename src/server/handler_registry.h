#pragma once
// Every API Samsa serves, each with the versions its handler supports. The
// list is in handler_registry.cc; ApiVersions answers from it, so advertised
// and implemented versions cannot drift.
#include <span>
#include <string>
#include <vector>

#include "server/handler.h"

namespace samsa::server {

class handler_registry {
  public:
    handler_registry();

    const api_handler* find(int16_t key) const;
    // The handler of `key` if Kafka serves that API on this kind of listener
    // (the schemas' "listeners": broker APIs on client listeners, KRaft and
    // broker-lifecycle APIs on controller listeners, some on both).
    const api_handler* find(int16_t key, bool controller_listener) const;
    static bool served_on(int16_t key, bool controller_listener);
    std::span<const api_handler> all() const { return _handlers; }

  private:
    std::vector<api_handler> _handlers;  // sorted by key
};

}  // namespace samsa::server
