#include "server/handler_registry.h"

#include <algorithm>

#include "server/handlers/api_versions.h"
#include "server/handlers/metadata.h"

namespace samsa::server {

handler_registry::handler_registry() {
    _handlers = {
        handlers::api_versions_handler(),
        handlers::metadata_handler(),
    };
    std::sort(_handlers.begin(), _handlers.end(),
              [](const api_handler& a, const api_handler& b) { return a.key < b.key; });
}

const api_handler* handler_registry::find(int16_t key) const {
    auto it = std::lower_bound(_handlers.begin(), _handlers.end(), key,
                               [](const api_handler& h, int16_t k) { return h.key < k; });
    return it != _handlers.end() && it->key == key ? &*it : nullptr;
}

}  // namespace samsa::server
