#include "cluster/purgatory/purgatory.h"

#include <asio/post.hpp>

namespace samsa::cluster {

purgatory_base::purgatory_base(std::string name, purgatory_driver& driver,
                               size_t purge_interval_requests)
    : _name(std::move(name)), _driver(driver), _purge_interval(purge_interval_requests) {}

purgatory_base::~purgatory_base() = default;

size_t purgatory_base::purge() {
    // Everything still pending stays listed; everything else goes now.
    _estimated_watched = _pending;
    ++_purges;
    return purge_completed();
}

void purgatory_base::start_watching(delayed_operation& op) {
    op._owner = this;
    ++_pending;
    ++_estimated_watched;
    _driver.schedule(op, op.delay_ms());
}

void purgatory_base::operation_completed() {
    --_pending;
    if (_purge_posted || _estimated_watched - _pending <= _purge_interval) {
        return;
    }
    // Posted, not run here: this is called from inside a completion, maybe
    // inside check_and_complete() walking a watch list.
    _purge_posted = true;
    asio::post(_driver.executor(), [this, alive = std::weak_ptr<char>(_alive)] {
        if (alive.expired()) {
            return;
        }
        _purge_posted = false;
        purge();
    });
}

}  // namespace samsa::cluster
