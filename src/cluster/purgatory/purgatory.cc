#include "cluster/purgatory/purgatory.h"

#include <asio/post.hpp>
#include <mutex>
#include <set>

namespace samsa::cluster {

namespace {

struct registry {
    std::mutex mu;
    std::set<const purgatory_base*> live;
};

registry& purgatories() {
    static registry* r = new registry();  // outlives every purgatory
    return *r;
}

// Only the owning reactor writes a count: a relaxed load and store suffice.
void bump(std::atomic<size_t>& n, ptrdiff_t by) {
    n.store(n.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

}  // namespace

purgatory_base::purgatory_base(std::string name, purgatory_driver& driver,
                               size_t purge_interval_requests)
    : _name(std::move(name)), _driver(driver), _purge_interval(purge_interval_requests) {
    auto& r = purgatories();
    std::lock_guard lock(r.mu);
    r.live.insert(this);
}

purgatory_base::~purgatory_base() {
    auto& r = purgatories();
    std::lock_guard lock(r.mu);
    r.live.erase(this);
}

void purgatory_base::for_each(
    const std::function<void(const std::string& name, size_t watched, size_t delayed)>& fn) {
    auto& r = purgatories();
    std::lock_guard lock(r.mu);
    for (const auto* p : r.live) {
        fn(p->name(), p->watched(), p->delayed());
    }
}

size_t purgatory_base::purge() {
    // Everything still pending stays listed; everything else goes now.
    _estimated_watched.store(delayed(), std::memory_order_relaxed);
    ++_purges;
    return purge_completed();
}

void purgatory_base::start_watching(delayed_operation& op) {
    op._owner = this;
    bump(_pending, 1);
    bump(_estimated_watched, 1);
    _driver.schedule(op, op.delay_ms());
}

void purgatory_base::operation_completed() {
    bump(_pending, -1);
    if (_purge_posted || watched() - delayed() <= _purge_interval) {
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
