// `samsa perf produce`: kafka-producer-perf-test.sh — send N records of a given
// size as fast as allowed, report throughput and send-to-acknowledgement latency.
// With --transactional-id the records go in transactions, each committed once
// --transaction-duration-ms has passed since it began (and the last at the end).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "tools/perf_support.h"
#include "tools/stop_signal.h"

namespace samsa::tools {

namespace {

struct perf_produce_options {
    client_options client;
    std::string topic;
    int64_t num_records = 0;
    int record_size = 100;
    double throughput = -1;
    std::vector<std::string> producer_props;
    std::string producer_config;
    int64_t reporting_interval_ms = 5000;
    bool json = false;
    std::string transactional_id;
    int64_t transaction_duration_ms = 3000;
    // Records carry keys "0".."keys-1" in turn (0: no key), so the
    // partitioner spreads them as it spreads an application's keys.
    int64_t keys = 0;
};

// The transaction calls' errors, as failures of the run.
std::optional<std::string> txn_failed(rd_kafka_error_t* e, const char* what) {
    if (!e) {
        return std::nullopt;
    }
    std::string out = std::string(what) + ": " + rd_kafka_error_string(e);
    rd_kafka_error_destroy(e);
    return out;
}

// Shared by the delivery callback, which runs inside rd_kafka_poll()/flush() on
// the sending thread: no locking needed.
struct produce_stats {
    perf_clock::time_point start;
    std::chrono::milliseconds interval;
    uint64_t record_size = 0;
    latency_histogram latencies;  // microseconds
    perf_window window;
    uint64_t delivered = 0;
    uint64_t failed = 0;
    rd_kafka_resp_err_t first_error = RD_KAFKA_RESP_ERR_NO_ERROR;

    void maybe_report(perf_clock::time_point now) {
        if (now - window.start < interval) {
            return;
        }
        double secs = window.seconds(now);
        std::fprintf(
            stderr,
            "%llu records sent, %.1f records/sec (%.2f MB/sec), %.1f ms avg latency, "
            "%.1f ms max latency.\n",
            static_cast<unsigned long long>(window.count), double(window.count) / secs,
            double(window.bytes) / k_bytes_per_mb / secs,
            window.count ? double(window.latency_sum_us) / double(window.count) / 1000.0 : 0.0,
            double(window.latency_max_us) / 1000.0);
        window = perf_window{now};
    }
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    auto* stats = static_cast<produce_stats*>(kafka_client::user_data(opaque));
    auto now = perf_clock::now();
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (stats->failed++ == 0) {
            stats->first_error = m->err;
        }
        return;
    }
    // The per-record opaque is the send time, in nanoseconds since the run began.
    auto sent_ns = reinterpret_cast<uintptr_t>(m->_private);
    auto latency_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - stats->start).count() -
        int64_t(sent_ns);
    uint64_t latency_us = latency_ns > 0 ? uint64_t(latency_ns) / 1000 : 0;
    ++stats->delivered;
    stats->latencies.record(latency_us);
    stats->window.record(stats->record_size, latency_us);
    stats->maybe_report(now);
}

int run_perf_produce(const perf_produce_options& o) {
    property_list settings = {
        {"client.id", "samsa-perf-producer"},
        {"acks", "all"},
        {"message.timeout.ms", std::to_string(o.client.timeout.count())},
    };
    if (!o.producer_config.empty()) {
        auto file = load_properties_file(o.producer_config);
        if (!file) {
            return fail(file.err());
        }
        settings.insert(settings.end(), file->begin(), file->end());
    }
    auto extra = parse_key_values(o.producer_props);
    if (!extra) {
        return fail(extra.err());
    }
    settings.insert(settings.end(), extra->begin(), extra->end());
    const bool transactional = !o.transactional_id.empty();
    if (transactional) {
        settings.push_back({"transactional.id", o.transactional_id});
    }

    produce_stats stats;
    stats.interval = std::chrono::milliseconds(o.reporting_interval_ms);
    stats.record_size = uint64_t(o.record_size);
    auto client = kafka_client::create(client_kind::producer, o.client, settings,
                                       client_hooks{&on_delivery, &stats});
    if (!client) {
        return fail(client.err());
    }
    rd_kafka_t* rk = client->handle();
    rd_kafka_topic_t* topic = rd_kafka_topic_new(rk, o.topic.c_str(), nullptr);
    install_stop_handlers();
    const int timeout_ms = int(o.client.timeout.count());
    if (transactional) {
        if (auto e = txn_failed(rd_kafka_init_transactions(rk, timeout_ms), "init transactions")) {
            return fail(*e);
        }
        if (auto e = txn_failed(rd_kafka_begin_transaction(rk), "begin transaction")) {
            return fail(*e);
        }
    }
    uint64_t transactions = 0;
    std::optional<std::string> txn_error;

    // One payload for every record; the client sends it without copying.
    std::string payload = random_payload(size_t(o.record_size));
    stats.start = perf_clock::now();
    stats.window = perf_window{stats.start};
    throughput_throttler throttler(o.throughput, stats.start);
    uint64_t sent = 0;
    std::optional<rd_kafka_resp_err_t> refused;
    auto txn_start = perf_clock::now();
    for (int64_t i = 0; i < o.num_records && !stop_requested(); ++i) {
        if (transactional &&
            perf_clock::now() - txn_start >= std::chrono::milliseconds(o.transaction_duration_ms)) {
            // Commit flushes what the transaction holds first.
            txn_error = txn_failed(rd_kafka_commit_transaction(rk, timeout_ms), "commit");
            if (!txn_error) {
                ++transactions;
                txn_error = txn_failed(rd_kafka_begin_transaction(rk), "begin transaction");
            }
            if (txn_error) {
                break;
            }
            txn_start = perf_clock::now();
        }
        for (;;) {
            auto wait = throttler.wait_before(sent, perf_clock::now());
            if (wait.count() <= 0) {
                break;
            }
            rd_kafka_poll(
                rk, int(std::max<int64_t>(
                        1, std::chrono::duration_cast<std::chrono::milliseconds>(wait).count())));
        }
        auto now_ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(perf_clock::now() - stats.start)
                .count();
        char key[24];
        const int key_len =
            o.keys > 0 ? std::snprintf(key, sizeof key, "%lld", static_cast<long long>(i % o.keys))
                       : 0;
        int rc = rd_kafka_produce(topic, RD_KAFKA_PARTITION_UA, 0, payload.data(), payload.size(),
                                  key_len > 0 ? key : nullptr, size_t(key_len),
                                  reinterpret_cast<void*>(uintptr_t(now_ns)));
        if (rc != 0) {
            rd_kafka_resp_err_t err = rd_kafka_last_error();
            if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
                rd_kafka_poll(rk, 10);
                --i;  // the same record again, once the queue drains
                continue;
            }
            refused = err;
            break;
        }
        ++sent;
        rd_kafka_poll(rk, 0);
    }
    if (transactional && !txn_error) {
        txn_error = txn_failed(rd_kafka_commit_transaction(rk, timeout_ms), "commit");
        transactions += txn_error ? 0 : 1;
    }
    auto deadline = perf_clock::now() + o.client.timeout;
    while (rd_kafka_outq_len(rk) > 0 && perf_clock::now() < deadline) {
        rd_kafka_flush(rk, 100);
    }
    rd_kafka_poll(rk, 0);
    rd_kafka_topic_destroy(topic);

    double secs = std::chrono::duration<double>(perf_clock::now() - stats.start).count();
    double rps = double(stats.delivered) / secs;
    double mbps = double(stats.delivered) * double(o.record_size) / k_bytes_per_mb / secs;
    const auto& h = stats.latencies;
    if (o.json) {
        json_object j;
        j.add("records", int64_t(stats.delivered))
            .add("failed", int64_t(sent - stats.delivered))
            .add("record_size", int64_t(o.record_size))
            .add("elapsed_ms", secs * 1000.0)
            .add("records_per_sec", rps)
            .add("mb_per_sec", mbps)
            .add("latency_ms", latency_json(h));
        if (transactional) {
            j.add("transactions", int64_t(transactions));
        }
        std::printf("%s\n", j.str().c_str());
    } else {
        std::printf(
            "%llu records sent, %f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max "
            "latency, %llu ms 50th, %llu ms 95th, %llu ms 99th, %llu ms 99.9th.\n",
            static_cast<unsigned long long>(stats.delivered), rps, mbps, h.mean() / 1000.0,
            double(h.max()) / 1000.0,
            static_cast<unsigned long long>(h.value_at_percentile(50) / 1000),
            static_cast<unsigned long long>(h.value_at_percentile(95) / 1000),
            static_cast<unsigned long long>(h.value_at_percentile(99) / 1000),
            static_cast<unsigned long long>(h.value_at_percentile(99.9) / 1000));
    }
    if (txn_error) {
        return fail(*txn_error);
    }
    if (refused) {
        return fail(client->explain("sending failed", *refused));
    }
    if (stats.delivered < sent) {
        auto err = stats.first_error != RD_KAFKA_RESP_ERR_NO_ERROR
                       ? stats.first_error
                       : RD_KAFKA_RESP_ERR__MSG_TIMED_OUT;
        return fail(std::to_string(sent - stats.delivered) + " of " + std::to_string(sent) +
                    " records were not delivered: " + client->explain("delivery failed", err));
    }
    return 0;
}

}  // namespace

tool_command add_perf_produce_command(CLI::App& perf) {
    auto o = std::make_shared<perf_produce_options>();
    auto* cmd = add_verb(perf, "produce", "Producer throughput and latency");
    add_client_options(*cmd, o->client);
    cmd->add_option("--topic", o->topic, "Topic to produce to")->required();
    cmd->add_option("--num-records", o->num_records, "Number of records to send")
        ->required()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--record-size", o->record_size, "Size of each record in bytes")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--throughput", o->throughput,
                    "Target records/sec; -1 for as fast as possible");
    cmd->add_option("--producer-props", o->producer_props,
                    "Producer settings, name=value ... (e.g. acks=1 linger.ms=5)");
    cmd->add_option("--producer.config", o->producer_config, "Producer settings file")
        ->check(CLI::ExistingFile);
    cmd->add_option("--reporting-interval", o->reporting_interval_ms,
                    "Milliseconds between progress lines on stderr")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--json", o->json, "Print the final summary as JSON");
    cmd->add_option("--keys", o->keys,
                    "Key the records 0..N-1 in turn, for the partitioner (default: no keys)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--transactional-id", o->transactional_id,
                    "Send in transactions of this transactional id");
    cmd->add_option("--transaction-duration-ms", o->transaction_duration_ms,
                    "How long each transaction stays open before its commit")
        ->check(CLI::PositiveNumber);
    return {cmd, [o] { return run_perf_produce(*o); }};
}

}  // namespace samsa::tools
