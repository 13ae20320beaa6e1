#pragma once
// The broker's counters (docs/metrics.md): written on the data path with no
// lock and no shared cache line, merged only when /metrics is scraped.
//
// Each thread that counts owns one `thread_stats` block, allocated on its
// first count and never freed (so a counter never goes backwards when a
// thread ends). A block's fields are relaxed atomics: only its own thread
// writes them, any thread may read them. Per-topic counters live in a map
// that only the owning thread inserts into (under the block's mutex); the
// owner looks up without the lock, and a scrape reads under it.
//
//   auto& s = metrics::local();
//   s.topic(name).bytes_in.add(n);          // on a reactor
//   metrics::for_each_block([](const thread_stats& b) { ... });  // a scrape
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace samsa::metrics {

// Whether anything is counted: a node that serves no /metrics
// (metrics.listener empty) counts nothing. On by default; the server sets it
// at start. Count sites check it first.
bool enabled();
void set_enabled(bool on);

// One thread's counter. Only the owning thread writes it.
class counter {
  public:
    void add(uint64_t n) {
        _v.store(_v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    }
    uint64_t value() const { return _v.load(std::memory_order_relaxed); }

  private:
    std::atomic<uint64_t> _v{0};
};

// Kafka's BrokerTopicMetrics (per topic, and for all topics).
struct topic_counters {
    counter messages_in;
    counter bytes_in;
    counter bytes_out;
    counter total_produce_requests;
    counter failed_produce_requests;
    counter total_fetch_requests;
    counter failed_fetch_requests;
};

// Request latencies in milliseconds, as Kafka's RequestMetrics histograms.
// Bucket i counts observations <= k_bucket_ms[i] (not yet cumulative); the
// last bucket is +Inf.
inline constexpr std::array<double, 15> k_bucket_ms = {0.5, 1,   2.5,  5,    10,   25,    50,   100,
                                                       250, 500, 1000, 2500, 5000, 10000, 30000};

struct latency_histogram {
    std::array<counter, k_bucket_ms.size() + 1> buckets;
    counter sum_us;
    counter count;

    void observe_us(uint64_t us);
};

// Phases of a request, as Kafka's RequestChannel times them.
enum class request_phase : uint8_t {
    request_queue,   // read, waiting for the request before it to be answered
    local,           // in its handler (acks=all and long polls wait here)
    response_queue,  // answered, waiting for earlier responses and throttling
    response_send,   // being written to the socket
    total,
};
inline constexpr size_t k_request_phases = 5;
inline constexpr size_t k_max_api_key = 128;
inline constexpr size_t k_max_api_version = 32;

// Error codes -1 (UNKNOWN_SERVER_ERROR) to 128 have a slot each; any other
// code counts in the last one.
inline constexpr size_t k_error_code_slots = 131;
inline constexpr size_t error_code_slot(int16_t code) {
    return code >= -1 && code <= 128 ? size_t(code + 1) : k_error_code_slots - 1;
}

struct request_counters {
    std::array<counter, k_max_api_version> requests;  // by version
    std::array<latency_histogram, k_request_phases> times;
    // Kafka's ErrorsPerSec: each ErrorCode in the responses (a topic's, a
    // partition's, the response's own), NONE included, by error_code_slot.
    std::array<counter, k_error_code_slots> errors;
};

// One thread's counters.
class thread_stats {
  public:
    // Only the owning thread calls topic().
    topic_counters& topic(std::string_view name);
    request_counters& request(int16_t api_key);

    topic_counters all_topics;
    counter replication_bytes_in;   // followers' fetches, on the follower
    counter replication_bytes_out;  // followers' fetches, on the leader
    counter isr_shrinks;
    counter isr_expands;

    // A scrape: `f(name, counters)` for every topic this thread counted.
    void for_each_topic(
        const std::function<void(const std::string&, const topic_counters&)>& f) const;
    // A scrape: `f(api_key, counters)` for every api this thread counted.
    void for_each_request(const std::function<void(int16_t, const request_counters&)>& f) const;

  private:
    mutable std::mutex _mu;  // inserts into _topics and _requests; scrapes
    std::map<std::string, topic_counters, std::less<>> _topics;
    std::array<std::atomic<request_counters*>, k_max_api_key> _requests{};
};

// The calling thread's block.
thread_stats& local();
// Every block ever made, under the registry's lock.
void for_each_block(const std::function<void(const thread_stats&)>& f);

// Sums over every thread.
uint64_t sum(counter thread_stats::*c);
uint64_t sum(counter topic_counters::*c);  // all topics

}  // namespace samsa::metrics
