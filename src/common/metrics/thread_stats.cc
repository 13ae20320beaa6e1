#include "common/metrics/thread_stats.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace samsa::metrics {

namespace {
std::atomic<bool> g_enabled{true};
}

bool enabled() {
    return g_enabled.load(std::memory_order_relaxed);
}
void set_enabled(bool on) {
    g_enabled.store(on, std::memory_order_relaxed);
}

void latency_histogram::observe_us(uint64_t us) {
    const double ms = double(us) / 1000.0;
    const auto it = std::lower_bound(k_bucket_ms.begin(), k_bucket_ms.end(), ms);
    buckets[size_t(it - k_bucket_ms.begin())].add(1);
    sum_us.add(us);
    count.add(1);
}

topic_counters& thread_stats::topic(std::string_view name) {
    // Only this thread inserts, so its own lookup needs no lock; the insert
    // takes it because a scrape may be iterating.
    if (auto it = _topics.find(name); it != _topics.end()) {
        return it->second;
    }
    std::lock_guard lock(_mu);
    return _topics.try_emplace(std::string(name)).first->second;
}

request_counters& thread_stats::request(int16_t api_key) {
    const size_t i = std::min<size_t>(size_t(uint16_t(api_key)), k_max_api_key - 1);
    auto* r = _requests[i].load(std::memory_order_acquire);
    if (!r) {
        r = new request_counters();  // lives as long as the block: forever
        _requests[i].store(r, std::memory_order_release);
    }
    return *r;
}

void thread_stats::for_each_topic(
    const std::function<void(const std::string&, const topic_counters&)>& f) const {
    std::lock_guard lock(_mu);
    for (const auto& [name, c] : _topics) {
        f(name, c);
    }
}

void thread_stats::for_each_request(
    const std::function<void(int16_t, const request_counters&)>& f) const {
    for (size_t i = 0; i < _requests.size(); ++i) {
        if (const auto* r = _requests[i].load(std::memory_order_acquire)) {
            f(int16_t(i), *r);
        }
    }
}

namespace {

struct registry {
    std::mutex mu;
    std::vector<std::unique_ptr<thread_stats>> blocks;
};

registry& blocks() {
    static auto* r = new registry();  // never destroyed: threads may count at exit
    return *r;
}

}  // namespace

thread_stats& local() {
    thread_local thread_stats* mine = nullptr;
    if (!mine) {
        auto& r = blocks();
        std::lock_guard lock(r.mu);
        mine = r.blocks.emplace_back(std::make_unique<thread_stats>()).get();
    }
    return *mine;
}

void for_each_block(const std::function<void(const thread_stats&)>& f) {
    auto& r = blocks();
    std::lock_guard lock(r.mu);
    for (const auto& b : r.blocks) {
        f(*b);
    }
}

uint64_t sum(counter thread_stats::*c) {
    uint64_t n = 0;
    for_each_block([&](const thread_stats& b) { n += (b.*c).value(); });
    return n;
}

uint64_t sum(counter topic_counters::*c) {
    uint64_t n = 0;
    for_each_block([&](const thread_stats& b) { n += (b.all_topics.*c).value(); });
    return n;
}

}  // namespace samsa::metrics
