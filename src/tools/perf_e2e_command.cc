// `samsa perf e2e`: produce and consume at once and measure end-to-end latency,
// from the moment a record is handed to the producer to the moment the consumer
// receives it, at a target rate.
//
// Each record starts with a 16-byte stamp: a marker (so records from other
// producers on the topic are ignored) and the send time on this process's
// steady clock. The consumer starts at the current end of every partition.
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>

#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "tools/perf_support.h"
#include "tools/stop_signal.h"

namespace samsa::tools {

namespace {

constexpr uint64_t k_marker = 0x53414d5341453245ULL;  // "SAMSAE2E"
constexpr size_t k_stamp_size = 16;

struct perf_e2e_options {
    client_options client;
    std::string topic;
    int64_t num_records = 10000;
    int record_size = 100;
    double throughput = 1000;
    std::vector<std::string> producer_props;
    std::vector<std::string> consumer_props;
    int64_t reporting_interval_ms = 5000;
    bool json = false;
};

struct delivery_failures {
    uint64_t failed = 0;
    rd_kafka_resp_err_t first_error = RD_KAFKA_RESP_ERR_NO_ERROR;
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    auto* f = static_cast<delivery_failures*>(kafka_client::user_data(opaque));
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR && f->failed++ == 0) {
        f->first_error = m->err;
    }
}

void put_u64(char* p, uint64_t v) {
    for (int i = 7; i >= 0; --i) {
        p[i] = char(v & 0xff);
        v >>= 8;
    }
}

uint64_t get_u64(const char* p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) {
        v = v << 8 | uint8_t(p[i]);
    }
    return v;
}

uint64_t now_ns() {
    return uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(perf_clock::now().time_since_epoch())
            .count());
}

// Runs on its own thread; everything here is that thread's until join().
struct e2e_receiver {
    rd_kafka_t* rk;
    std::atomic<int64_t> expected{0};
    std::chrono::milliseconds interval;
    std::atomic<bool> producing_done{false};
    std::atomic<int64_t> production_end_ns{0};
    std::chrono::milliseconds grace;  // how long to wait after the last send
    // Set once a warm-up record (stamped 0, not counted) has come back.
    std::atomic<bool> warmed_up{false};
    latency_histogram latencies;  // microseconds
    int64_t received = 0;
    std::optional<std::string> error;

    void run() {
        perf_window window{perf_clock::now()};
        while (received < expected.load() && !stop_requested()) {
            auto now = perf_clock::now();
            if (producing_done.load() &&
                int64_t(now_ns()) - production_end_ns.load() >
                    std::chrono::duration_cast<std::chrono::nanoseconds>(grace).count()) {
                break;
            }
            if (now - window.start >= interval) {
                double secs = window.seconds(now);
                std::fprintf(
                    stderr,
                    "%llu records received, %.1f records/sec, %.2f ms avg latency, "
                    "%.2f ms max latency.\n",
                    static_cast<unsigned long long>(window.count), double(window.count) / secs,
                    window.count ? double(window.latency_sum_us) / double(window.count) / 1000.0
                                 : 0.0,
                    double(window.latency_max_us) / 1000.0);
                window = perf_window{now};
            }
            rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 50);
            if (m == nullptr) {
                continue;
            }
            uint64_t arrived = now_ns();
            if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR && m->len >= k_stamp_size &&
                get_u64(static_cast<const char*>(m->payload)) == k_marker) {
                uint64_t sent = get_u64(static_cast<const char*>(m->payload) + 8);
                if (sent == 0) {
                    warmed_up.store(true);
                    rd_kafka_message_destroy(m);
                    continue;
                }
                uint64_t latency_us = arrived > sent ? (arrived - sent) / 1000 : 0;
                latencies.record(latency_us);
                window.record(m->len, latency_us);
                ++received;
            } else if (m->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
                error = rd_kafka_message_errstr(m);
                rd_kafka_message_destroy(m);
                break;
            }
            rd_kafka_message_destroy(m);
        }
    }
};

int run_perf_e2e(const perf_e2e_options& o) {
    if (o.record_size < int(k_stamp_size)) {
        return fail("--record-size must be at least " + std::to_string(k_stamp_size) +
                    " (the send-time stamp)");
    }
    auto pextra = parse_key_values(o.producer_props);
    if (!pextra) {
        return fail(pextra.err());
    }
    auto cextra = parse_key_values(o.consumer_props);
    if (!cextra) {
        return fail(cextra.err());
    }
    property_list psettings = {
        {"client.id", "samsa-perf-e2e-producer"},
        {"acks", "all"},
        {"linger.ms", "0"},
        {"message.timeout.ms", std::to_string(o.client.timeout.count())},
    };
    psettings.insert(psettings.end(), pextra->begin(), pextra->end());
    property_list csettings = {
        {"client.id", "samsa-perf-e2e-consumer"},
        // assign() needs a group id in librdkafka 2.0; this one never joins or commits.
        {"group.id", "samsa-perf-e2e-" + std::to_string(::getpid())},
        {"enable.auto.commit", "false"},
        {"enable.partition.eof", "false"},
        // Deliver a record as soon as it is fetched, not after a batch fills.
        {"fetch.wait.max.ms", "100"},
        {"fetch.min.bytes", "1"},
    };
    csettings.insert(csettings.end(), cextra->begin(), cextra->end());

    auto consumer = kafka_client::create(client_kind::consumer, o.client, csettings);
    if (!consumer) {
        return fail(consumer.err());
    }
    auto md = consumer->metadata();
    if (!md) {
        return fail(md.err());
    }
    const topic_info* topic = md->find(o.topic);
    if (topic == nullptr || topic->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
        return fail("Topic '" + o.topic +
                    "' does not exist (create it first: samsa topics --create --topic " + o.topic +
                    ")");
    }
    // Start exactly at today's end offsets so no record of this run is missed.
    partition_list_ptr parts(rd_kafka_topic_partition_list_new(int(topic->partitions.size())));
    for (const auto& p : topic->partitions) {
        auto wm = consumer->query_watermarks(o.topic, p.id);
        if (!wm) {
            return fail(wm.err());
        }
        rd_kafka_topic_partition_list_add(parts.get(), o.topic.c_str(), p.id)->offset = wm->high;
    }
    rd_kafka_poll_set_consumer(consumer->handle());
    if (auto err = rd_kafka_assign(consumer->handle(), parts.get())) {
        return fail(consumer->explain("assign failed", err));
    }

    delivery_failures failures;
    auto producer = kafka_client::create(client_kind::producer, o.client, psettings,
                                         client_hooks{&on_delivery, &failures});
    if (!producer) {
        return fail(producer.err());
    }
    rd_kafka_t* rk = producer->handle();
    install_stop_handlers();

    e2e_receiver receiver;
    receiver.rk = consumer->handle();
    receiver.expected.store(o.num_records);
    receiver.interval = std::chrono::milliseconds(o.reporting_interval_ms);
    receiver.grace = o.client.timeout;
    std::thread receiver_thread([&receiver] { receiver.run(); });

    std::string payload = random_payload(size_t(o.record_size));
    put_u64(payload.data(), k_marker);
    // Warm-up: until a record comes back, the consumer is still connecting to
    // the leader, and that wait would be charged to the first records of the
    // run. Records stamped 0 go every 100 ms until one arrives; none counts.
    put_u64(payload.data() + 8, 0);
    const auto warm_deadline = perf_clock::now() + o.client.timeout;
    auto next_warm_up = perf_clock::now();
    while (!receiver.warmed_up.load() && !stop_requested() && perf_clock::now() < warm_deadline) {
        if (perf_clock::now() >= next_warm_up) {
            rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(o.topic.c_str()),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                              RD_KAFKA_V_VALUE(payload.data(), payload.size()), RD_KAFKA_V_END);
            next_warm_up = perf_clock::now() + std::chrono::milliseconds(100);
        }
        rd_kafka_poll(rk, 10);
    }
    if (!receiver.warmed_up.load()) {
        receiver.expected.store(0);
        receiver_thread.join();
        consumer->close_consumer();
        if (stop_requested()) {
            return 1;
        }
        return fail("no record came back to the consumer within " +
                    format_duration(o.client.timeout));
    }
    auto start = perf_clock::now();
    throughput_throttler throttler(o.throughput, start);
    int64_t sent = 0;
    std::optional<rd_kafka_resp_err_t> refused;
    while (sent < o.num_records && !stop_requested()) {
        auto wait = throttler.wait_before(uint64_t(sent), perf_clock::now());
        if (wait.count() > 0) {
            // Short waits are spun on the clock: sleeping would skew the send times.
            if (wait > std::chrono::milliseconds(2)) {
                rd_kafka_poll(rk, 1);
            }
            continue;
        }
        put_u64(payload.data() + 8, now_ns());
        rd_kafka_resp_err_t err = rd_kafka_producev(
            rk, RD_KAFKA_V_TOPIC(o.topic.c_str()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
            RD_KAFKA_V_VALUE(payload.data(), payload.size()), RD_KAFKA_V_END);
        if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            rd_kafka_poll(rk, 10);
            continue;
        }
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            refused = err;
            break;
        }
        ++sent;
        rd_kafka_poll(rk, 0);
    }
    auto deadline = perf_clock::now() + o.client.timeout;
    while (rd_kafka_outq_len(rk) > 0 && perf_clock::now() < deadline) {
        rd_kafka_flush(rk, 100);
    }
    rd_kafka_poll(rk, 0);
    receiver.expected.store(sent);
    receiver.production_end_ns.store(int64_t(now_ns()));
    receiver.producing_done.store(true);
    receiver_thread.join();
    consumer->close_consumer();

    double secs = std::chrono::duration<double>(perf_clock::now() - start).count();
    const auto& h = receiver.latencies;
    if (o.json) {
        json_object j;
        j.add("records", sent)
            .add("received", receiver.received)
            .add("record_size", int64_t(o.record_size))
            .add("elapsed_ms", secs * 1000.0)
            .add("records_per_sec", double(receiver.received) / secs)
            .add("latency_ms", latency_json(h));
        std::printf("%s\n", j.str().c_str());
    } else {
        std::printf(
            "%lld records received, %.3f ms avg latency, %.3f ms max latency, %.3f ms 50th, "
            "%.3f ms 95th, %.3f ms 99th, %.3f ms 99.9th.\n",
            static_cast<long long>(receiver.received), h.mean() / 1000.0, double(h.max()) / 1000.0,
            double(h.value_at_percentile(50)) / 1000.0, double(h.value_at_percentile(95)) / 1000.0,
            double(h.value_at_percentile(99)) / 1000.0,
            double(h.value_at_percentile(99.9)) / 1000.0);
    }
    if (refused) {
        return fail(producer->explain("sending failed", *refused));
    }
    if (receiver.error) {
        return fail("consume failed: " + *receiver.error);
    }
    if (failures.failed > 0) {
        return fail(std::to_string(failures.failed) + " records were not delivered: " +
                    producer->explain("delivery failed", failures.first_error));
    }
    if (receiver.received < sent && !stop_requested()) {
        return fail("received " + std::to_string(receiver.received) + " of " +
                    std::to_string(sent) + " records within " + format_duration(o.client.timeout) +
                    " of the last send");
    }
    return 0;
}

}  // namespace

tool_command add_perf_e2e_command(CLI::App& perf) {
    auto o = std::make_shared<perf_e2e_options>();
    auto* cmd = add_verb(perf, "e2e", "End-to-end latency: produce and consume at once");
    add_client_options(*cmd, o->client);
    cmd->add_option("--topic", o->topic, "Topic (must exist)")->required();
    cmd->add_option("--num-records", o->num_records, "Number of records to send")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--record-size", o->record_size, "Size of each record in bytes (>= 16)");
    cmd->add_option("--throughput", o->throughput, "Target records/sec; -1 for unthrottled");
    cmd->add_option("--producer-props", o->producer_props, "Producer settings, name=value ...");
    cmd->add_option("--consumer-props", o->consumer_props, "Consumer settings, name=value ...");
    cmd->add_option("--reporting-interval", o->reporting_interval_ms,
                    "Milliseconds between progress lines on stderr")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--json", o->json, "Print the final summary as JSON");
    return {cmd, [o] { return run_perf_e2e(*o); }};
}

}  // namespace samsa::tools
