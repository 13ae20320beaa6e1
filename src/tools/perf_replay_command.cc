// `samsa perf replay`: the broker's own produce ceiling. It builds one record
// batch (records of --record-size random bytes, about --batch-bytes in all,
// uncompressed, no producer id) and sends it over and over in Produce
// requests, pipelined on raw connections (tools/replay_connection.h), to the
// leaders of the topic's partitions, until --bytes of batches are answered.
// No client library is on the hot path, so on a shared machine the broker,
// not the client, sets the pace (bench/ceiling_bench.sh).
//
// Plain TCP only: a TLS or SASL --command-config is refused, never ignored.
#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <thread>

#include "net/blocking_call.h"
#include "protocol/generated/api_table.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/request_header.h"
#include "record/batch_builder.h"
#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "tools/perf_support.h"
#include "tools/replay_connection.h"
#include "tools/stop_signal.h"

namespace samsa::tools {

namespace {

// Produce v9: the first flexible version that still names topics (v13 names
// them by id); Kafka and Samsa both serve it.
constexpr int16_t replay_produce_version = 9;

struct perf_replay_options {
    client_options client;
    std::string topic;
    int record_size = 1024;
    int batch_bytes = 1 << 20;
    int acks = 1;
    int connections = 1;
    int in_flight = 5;
    int partitions = 0;  // 0: every partition of the topic
    double gigabytes = 1.0;
    bool json = false;
};

struct leader_address {
    std::string host;
    uint16_t port = 0;
};

// partition -> the address of its leader, for the first `limit` partitions
// (0: all).
result<std::map<int32_t, leader_address>> find_leaders(const perf_replay_options& o) {
    auto to = first_bootstrap(o.client);
    if (!to) {
        return to.err();
    }
    protocol::metadata_request req;
    auto& t = req.topics->emplace_back();
    t.name = o.topic;
    req.allow_auto_topic_creation = false;
    net::blocking_target target;
    target.host = to->first;
    target.port = to->second;
    target.client_id = "samsa-perf-replay";
    target.timeout = o.client.timeout;
    auto md = net::call_blocking<protocol::metadata_response>(target, req, 12);
    if (!md) {
        return md.err();
    }
    std::map<node_id, leader_address> brokers;
    for (const auto& b : md->brokers) {
        brokers[b.node_id] = {b.host, uint16_t(b.port)};
    }
    if (md->topics.empty() || md->topics[0].error_code != 0) {
        const int16_t ec = md->topics.empty() ? 3 : md->topics[0].error_code;
        return error(error_code(ec),
                     "topic " + o.topic + ": " + std::string(error_name(error_code(ec))));
    }
    std::map<int32_t, leader_address> out;
    for (const auto& p : md->topics[0].partitions) {
        if (o.partitions > 0 && p.partition_index >= o.partitions) {
            continue;
        }
        auto b = brokers.find(p.leader_id);
        if (p.error_code != 0 || b == brokers.end()) {
            return error(error_code::leader_not_available,
                         o.topic + "-" + std::to_string(p.partition_index) + " has no leader");
        }
        out[p.partition_index] = b->second;
    }
    if (out.empty() || (o.partitions > 0 && int(out.size()) < o.partitions)) {
        return error(error_code::invalid_partitions,
                     "topic " + o.topic + " has " +
                         std::to_string(md->topics[0].partitions.size()) + " partitions");
    }
    return out;
}

// One batch of about `batch_bytes`: as many records of `record_size` as fit.
result<std::pair<bytes, int32_t>> build_batch(int record_size, int batch_bytes) {
    const std::string payload = random_payload(size_t(record_size));
    const bytes_view value(reinterpret_cast<const uint8_t*>(payload.data()), payload.size());
    record::batch_builder b;
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    // A record costs its value and at most 21 bytes of framing (varints of
    // length, deltas and counts); the batch header is 61.
    const size_t per_record = size_t(record_size) + 21;
    do {
        b.add(now, std::nullopt, value);
    } while (61 + b.records_size() + per_record <= size_t(batch_bytes));
    auto built = b.build();
    if (!built) {
        return built.err();
    }
    return std::pair{std::move(*built), b.records_count()};
}

bytes produce_frame(const perf_replay_options& o, int32_t partition, const bytes& batch) {
    protocol::produce_request req;
    req.acks = int16_t(o.acks);
    req.timeout_ms = int32_t(o.client.timeout.count());
    auto& t = req.topic_data.emplace_back();
    t.name = o.topic;
    auto& p = t.partition_data.emplace_back();
    p.index = partition;
    p.records = protocol::records::view(batch);
    const bytes body = protocol::encode_message(req, replay_produce_version);
    protocol::writer w;
    w.write_int32(0);  // the size, below
    protocol::request_header h;
    h.request_api_key = protocol::produce_request::api_key;
    h.request_api_version = replay_produce_version;
    h.client_id = "samsa-perf-replay";
    h.encode(w, protocol::request_header_version(h.request_api_key, h.request_api_version));
    bytes frame = std::move(w.buffer());
    frame.insert(frame.end(), body.begin(), body.end());
    store_be32(frame.data(), uint32_t(frame.size() - 4));
    return frame;
}

int run_perf_replay(const perf_replay_options& o) {
    if (o.acks != 1 && o.acks != -1) {
        return fail("--acks must be 1 or -1 (acks=0 has no answers to pace the replay)");
    }
    auto security = client_security_of(o.client);
    if (!security) {
        return fail(security.err());
    }
    if (*security) {
        return fail(
            "samsa perf replay speaks PLAINTEXT only; the --command-config asks for "
            "TLS or SASL");
    }
    auto leaders = find_leaders(o);
    if (!leaders) {
        return fail(leaders.err());
    }
    auto batch = build_batch(o.record_size, o.batch_bytes);
    if (!batch) {
        return fail(batch.err());
    }
    const auto& [batch_bytes, records_per_batch] = *batch;
    // Each leader gets --connections connections, its partitions dealt among
    // them; the requests are shared out by partition.
    std::vector<replay_plan> plans;
    std::map<std::pair<std::string, uint16_t>, std::vector<size_t>> by_leader;
    for (const auto& [partition, at] : *leaders) {
        auto& conns = by_leader[{at.host, at.port}];
        if (conns.empty()) {
            for (int c = 0; c < o.connections; ++c) {
                conns.push_back(plans.size());
                auto& plan = plans.emplace_back();
                plan.host = at.host;
                plan.port = at.port;
                plan.api_version = replay_produce_version;
                plan.in_flight = o.in_flight;
            }
        }
        size_t least = conns[0];
        for (size_t i : conns) {
            least = plans[i].frames.size() < plans[least].frames.size() ? i : least;
        }
        plans[least].frames.push_back(produce_frame(o, partition, batch_bytes));
    }
    std::erase_if(plans, [](const replay_plan& p) { return p.frames.empty(); });
    const uint64_t total_requests =
        std::max<uint64_t>(1, uint64_t(o.gigabytes * 1e9 / double(batch_bytes.size())));
    for (size_t i = 0; i < plans.size(); ++i) {
        plans[i].requests = total_requests / plans.size() + (i < total_requests % plans.size());
    }

    install_stop_handlers();
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> sent_bytes{0};
    std::vector<replay_outcome> outcomes(plans.size());
    std::atomic<size_t> running{plans.size()};
    const auto start = perf_clock::now();
    std::vector<std::thread> threads;
    for (size_t i = 0; i < plans.size(); ++i) {
        threads.emplace_back([&, i] {
            outcomes[i] = run_replay_connection(plans[i], stop, sent_bytes);
            running.fetch_sub(1);
        });
    }
    uint64_t reported = 0;
    auto last = start;
    while (running.load() > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        stop.store(stop_requested());
        const auto now = perf_clock::now();
        if (now - last >= std::chrono::seconds(5)) {
            const uint64_t sent = sent_bytes.load();
            std::fprintf(stderr, "%.1f MB sent, %.1f MB/sec.\n", double(sent) / k_bytes_per_mb,
                         double(sent - reported) / k_bytes_per_mb /
                             std::chrono::duration<double>(now - last).count());
            reported = sent;
            last = now;
        }
    }
    for (auto& t : threads) {
        t.join();
    }
    const double secs = std::chrono::duration<double>(perf_clock::now() - start).count();

    latency_histogram latencies;
    uint64_t answered = 0;
    uint64_t failed = 0;
    int16_t first_error = 0;
    std::string broken;
    for (const auto& out : outcomes) {
        latencies.merge(out.latencies);
        answered += out.answered;
        failed += out.failed;
        first_error = first_error ? first_error : out.first_error;
        broken = broken.empty() ? out.broken : broken;
    }
    const uint64_t ok = answered - failed;
    const double records = double(ok) * records_per_batch;
    const double rps = records / secs;
    const double mbps = records * o.record_size / k_bytes_per_mb / secs;
    const double wire_mbps = double(ok) * double(batch_bytes.size()) / k_bytes_per_mb / secs;
    if (o.json) {
        json_object j;
        j.add("requests", int64_t(answered))
            .add("failed", int64_t(failed + (total_requests - answered)))
            .add("records", int64_t(records))
            .add("record_size", int64_t(o.record_size))
            .add("batch_bytes", int64_t(batch_bytes.size()))
            .add("connections", int64_t(plans.size()))
            .add("elapsed_ms", secs * 1000.0)
            .add("records_per_sec", rps)
            .add("mb_per_sec", mbps)
            .add("batch_mb_per_sec", wire_mbps)
            .add("latency_ms", latency_json(latencies));
        std::printf("%s\n", j.str().c_str());
    } else {
        std::printf(
            "%llu requests of %zu-byte batches (%d records each) answered on %zu connection(s), "
            "%.1f records/sec (%.2f MB/sec of values, %.2f MB/sec of batches), "
            "%.2f ms avg latency, %.2f ms max latency, %.2f ms 50th, %.2f ms 99th.\n",
            static_cast<unsigned long long>(answered), batch_bytes.size(), records_per_batch,
            plans.size(), rps, mbps, wire_mbps, latencies.mean() / 1000.0,
            double(latencies.max()) / 1000.0, double(latencies.value_at_percentile(50)) / 1000.0,
            double(latencies.value_at_percentile(99)) / 1000.0);
    }
    if (failed > 0) {
        std::fprintf(stderr, "%llu requests failed; the first with %s\n",
                     static_cast<unsigned long long>(failed),
                     std::string(error_name(error_code(first_error))).c_str());
    }
    if (!broken.empty()) {
        std::fprintf(stderr, "stopped early: %s\n", broken.c_str());
    }
    return failed == 0 && answered == total_requests ? 0 : 1;
}

}  // namespace

tool_command add_perf_replay_command(CLI::App& perf) {
    auto o = std::make_shared<perf_replay_options>();
    auto* cmd =
        add_verb(perf, "replay", "Broker produce ceiling: prebuilt batches over raw connections");
    add_client_options(*cmd, o->client);
    cmd->add_option("--topic", o->topic, "Topic to produce to")->required();
    cmd->add_option("--bytes", o->gigabytes, "Gigabytes (1e9 bytes) of batches to send")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--record-size", o->record_size, "Size of each record's value in bytes")
        ->check(CLI::Range(1, 1 << 20));
    cmd->add_option("--batch-bytes", o->batch_bytes,
                    "Size of the one record batch every request carries")
        ->check(CLI::Range(128, 64 << 20));
    cmd->add_option("--acks", o->acks, "1 (the leader) or -1 (all in-sync replicas)");
    cmd->add_option("--partitions", o->partitions,
                    "Send to partitions 0..N-1 only (default: all of them)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--connections", o->connections, "Connections to each leader")
        ->check(CLI::Range(1, 256));
    cmd->add_option("--in-flight", o->in_flight, "Unanswered requests per connection")
        ->check(CLI::Range(1, 1024));
    cmd->add_flag("--json", o->json, "Print the final summary as JSON");
    return {cmd, [o] { return run_perf_replay(*o); }};
}

}  // namespace samsa::tools
