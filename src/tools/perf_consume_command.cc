// `samsa perf consume`: kafka-consumer-perf-test.sh — read N records as fast as
// possible and report throughput in Kafka's format (and as JSON).
//
// Without --group the partitions are assigned directly from the start (or end,
// --from-latest); with --group the consumer joins that group, as Kafka's does.
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>

#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "tools/perf_support.h"
#include "tools/stop_signal.h"

namespace samsa::tools {

namespace {

struct perf_consume_options {
    client_options client;
    std::string topic;
    int64_t messages = 0;
    std::optional<std::string> group;
    bool from_latest = false;
    std::vector<std::string> consumer_props;
    int64_t reporting_interval_ms = 5000;
    bool hide_header = false;
    bool json = false;
};

int run_perf_consume(const perf_consume_options& o) {
    property_list settings = {
        {"client.id", "samsa-perf-consumer"},
        {"auto.offset.reset", o.from_latest ? "latest" : "earliest"},
        {"enable.partition.eof", "false"},
    };
    if (o.group) {
        settings.emplace_back("group.id", *o.group);
    } else {
        // librdkafka 2.0 refuses assign() without a group id; this one never joins
        // (nothing is subscribed) and never commits.
        settings.emplace_back("group.id", "samsa-perf-consumer-" + std::to_string(::getpid()));
        settings.emplace_back("enable.auto.commit", "false");
    }
    auto extra = parse_key_values(o.consumer_props);
    if (!extra) {
        return fail(extra.err());
    }
    settings.insert(settings.end(), extra->begin(), extra->end());
    auto client = kafka_client::create(client_kind::consumer, o.client, settings);
    if (!client) {
        return fail(client.err());
    }
    rd_kafka_t* rk = client->handle();
    auto md = client->metadata();
    if (!md) {
        return fail(md.err());
    }
    const topic_info* topic = md->find(o.topic);
    if (topic == nullptr || topic->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
        return fail("Topic '" + o.topic + "' does not exist");
    }
    rd_kafka_poll_set_consumer(rk);
    if (o.group) {
        partition_list_ptr topics(rd_kafka_topic_partition_list_new(1));
        rd_kafka_topic_partition_list_add(topics.get(), o.topic.c_str(), RD_KAFKA_PARTITION_UA);
        if (auto err = rd_kafka_subscribe(rk, topics.get())) {
            return fail(client->explain("subscribe failed", err));
        }
    } else {
        partition_list_ptr parts(rd_kafka_topic_partition_list_new(int(topic->partitions.size())));
        for (const auto& p : topic->partitions) {
            rd_kafka_topic_partition_list_add(parts.get(), o.topic.c_str(), p.id)->offset =
                o.from_latest ? RD_KAFKA_OFFSET_END : RD_KAFKA_OFFSET_BEGINNING;
        }
        if (auto err = rd_kafka_assign(rk, parts.get())) {
            return fail(client->explain("assign failed", err));
        }
    }

    install_stop_handlers();
    auto wall_start = std::chrono::system_clock::now();
    auto start = perf_clock::now();
    auto last_record = start;
    std::optional<perf_clock::time_point> first_record;
    perf_window window{start};
    int64_t count = 0;
    uint64_t bytes = 0;
    std::optional<std::string> error;
    bool timed_out = false;
    while (count < o.messages && !stop_requested()) {
        auto now = perf_clock::now();
        if (now - last_record >= o.client.timeout) {
            timed_out = true;
            break;
        }
        if (now - window.start >= std::chrono::milliseconds(o.reporting_interval_ms)) {
            double secs = window.seconds(now);
            std::fprintf(stderr, "%llu records consumed, %.1f records/sec (%.2f MB/sec).\n",
                         static_cast<unsigned long long>(window.count), double(window.count) / secs,
                         double(window.bytes) / k_bytes_per_mb / secs);
            window = perf_window{now};
        }
        rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 100);
        if (m == nullptr) {
            continue;
        }
        if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            rd_kafka_resp_err_t err = m->err;
            std::string text = rd_kafka_message_errstr(m);
            rd_kafka_message_destroy(m);
            if (err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
                err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED) {
                error = client->explain("consume failed", err, text);
                break;
            }
            continue;
        }
        uint64_t size = m->len + m->key_len;
        rd_kafka_message_destroy(m);
        last_record = perf_clock::now();
        if (!first_record) {
            first_record = last_record;
        }
        ++count;
        bytes += size;
        window.record(size, 0);
    }
    auto end = perf_clock::now();
    auto wall_end = std::chrono::system_clock::now();
    client->close_consumer();
    if (error) {
        return fail(*error);
    }

    double secs = std::chrono::duration<double>(end - start).count();
    // Kafka splits the run into joining the group ("rebalance") and fetching;
    // here joining ends when the first record arrives.
    double rebalance_ms =
        first_record && o.group
            ? std::chrono::duration<double, std::milli>(*first_record - start).count()
            : 0.0;
    double fetch_secs = secs - rebalance_ms / 1000.0;
    double mb = double(bytes) / k_bytes_per_mb;
    if (o.json) {
        json_object j;
        j.add("records", count)
            .add("bytes", int64_t(bytes))
            .add("elapsed_ms", secs * 1000.0)
            .add("records_per_sec", double(count) / secs)
            .add("mb_per_sec", mb / secs)
            .add("rebalance_time_ms", rebalance_ms)
            .add("fetch_time_ms", fetch_secs * 1000.0)
            .add("fetch_records_per_sec", fetch_secs > 0 ? double(count) / fetch_secs : 0.0)
            .add("fetch_mb_per_sec", fetch_secs > 0 ? mb / fetch_secs : 0.0);
        std::printf("%s\n", j.str().c_str());
    } else {
        if (!o.hide_header) {
            std::printf(
                "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, "
                "nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec\n");
        }
        std::printf("%s, %s, %.4f, %.4f, %lld, %.4f, %lld, %lld, %.4f, %.4f\n",
                    perf_date(wall_start).c_str(), perf_date(wall_end).c_str(), mb, mb / secs,
                    static_cast<long long>(count), double(count) / secs,
                    static_cast<long long>(rebalance_ms),
                    static_cast<long long>(fetch_secs * 1000.0),
                    fetch_secs > 0 ? mb / fetch_secs : 0.0,
                    fetch_secs > 0 ? double(count) / fetch_secs : 0.0);
    }
    if (timed_out) {
        return fail("consumed " + std::to_string(count) + " of " + std::to_string(o.messages) +
                    " records: none arrived for " + format_duration(o.client.timeout));
    }
    return 0;
}

}  // namespace

tool_command add_perf_consume_command(CLI::App& perf) {
    auto o = std::make_shared<perf_consume_options>();
    auto* cmd = add_verb(perf, "consume", "Consumer throughput");
    add_client_options(*cmd, o->client);
    cmd->add_option("--topic", o->topic, "Topic to consume")->required();
    cmd->add_option("--messages", o->messages, "Number of records to read")
        ->required()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--group", o->group, "Consume as a member of this group (default: none)");
    cmd->add_flag("--from-latest", o->from_latest, "Start at the end of the log, not the start");
    cmd->add_option("--consumer-props", o->consumer_props, "Consumer settings, name=value ...");
    cmd->add_option("--reporting-interval", o->reporting_interval_ms,
                    "Milliseconds between progress lines on stderr")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--hide-header", o->hide_header, "Leave out the header line of the summary");
    cmd->add_flag("--json", o->json, "Print the final summary as JSON");
    return {cmd, [o] { return run_perf_consume(*o); }};
}

}  // namespace samsa::tools
