#pragma once
// Every API Samsa serves, each with the versions its handler supports. The
// list is in handler_registry.cc; ApiVersions answers from it, so advertised
// and implemented versions cannot drift.
#include <span>
#include <vector>

#include "server/handler.h"

namespace samsa::server {

class handler_registry {
  public:
    handler_registry();

    const api_handler* find(int16_t key) const;
    std::span<const api_handler> all() const { return _handlers; }

  private:
    std::vector<api_handler> _handlers;  // sorted by key
};

}  // namespace samsa::server
