// `samsa produce`: kafka-console-producer.sh — one record per line of stdin.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "tools/record_formatter.h"
#include "tools/stop_signal.h"

namespace samsa::tools {

namespace {

struct produce_options {
    client_options client;
    std::string topic;
    std::vector<std::string> properties;
    std::vector<std::string> producer_properties;
    std::string compression = "none";
    std::string acks = "all";
    std::optional<int32_t> partition;
};

// How a line becomes a record (Kafka's LineMessageReader properties).
struct line_reader_settings {
    bool parse_key = false;
    std::string key_separator = "\t";
    bool ignore_error = false;
    std::optional<std::string> null_marker;
};

result<line_reader_settings> reader_settings(const property_list& props) {
    line_reader_settings s;
    for (const auto& [k, v] : props) {
        if (k == "parse.key") {
            s.parse_key = v == "true";
        } else if (k == "key.separator") {
            s.key_separator = unescape_separator(v);
        } else if (k == "ignore.error") {
            s.ignore_error = v == "true";
        } else if (k == "null.marker") {
            s.null_marker = v;
        } else {
            return tool_error("unknown reader property '" + k +
                              "' (known: parse.key, key.separator, ignore.error, null.marker)");
        }
    }
    if (s.key_separator.empty()) {
        return tool_error("key.separator must not be empty");
    }
    return s;
}

struct delivery_tally {
    uint64_t delivered = 0;
    uint64_t failed = 0;
    rd_kafka_resp_err_t first_error = RD_KAFKA_RESP_ERR_NO_ERROR;

    void account(rd_kafka_resp_err_t err) {
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
            ++delivered;
        } else if (failed++ == 0) {
            first_error = err;
        }
    }
};

// Runs inside rd_kafka_poll()/rd_kafka_flush() on the producing thread.
void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    static_cast<delivery_tally*>(kafka_client::user_data(opaque))->account(m->err);
}

int run_produce(const produce_options& o) {
    auto props = parse_key_values(o.properties);
    if (!props) {
        return fail(props.err());
    }
    auto rs = reader_settings(*props);
    if (!rs) {
        return fail(rs.err());
    }
    auto extra = parse_key_values(o.producer_properties);
    if (!extra) {
        return fail(extra.err());
    }
    auto timeout_ms = std::to_string(o.client.timeout.count());
    property_list settings = {
        {"client.id", "samsa-console-producer"},
        {"acks", o.acks == "-1" ? "all" : o.acks},
        {"compression.type", o.compression},
        // Keys land on the partitions Java clients would choose.
        {"partitioner", "murmur2_random"},
        {"linger.ms", "5"},
        // Undeliverable records (broker gone, topic missing) fail within the timeout.
        {"message.timeout.ms", timeout_ms},
        {"topic.metadata.propagation.max.ms",
         std::to_string(std::min<int64_t>(o.client.timeout.count(), 3'600'000))},
    };
    settings.insert(settings.end(), extra->begin(), extra->end());

    delivery_tally tally;
    auto client = kafka_client::create(client_kind::producer, o.client, settings,
                                       client_hooks{&on_delivery, &tally});
    if (!client) {
        return fail(client.err());
    }
    rd_kafka_t* rk = client->handle();
    install_stop_handlers();

    uint64_t read = 0;
    std::string line;
    std::optional<std::string> reader_error;
    while (!stop_requested() && std::getline(std::cin, line)) {
        ++read;
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        std::optional<std::string> key;
        std::string value = line;
        if (rs->parse_key) {
            auto pos = line.find(rs->key_separator);
            if (pos != std::string::npos) {
                key = line.substr(0, pos);
                value = line.substr(pos + rs->key_separator.size());
            } else if (!rs->ignore_error) {
                reader_error = "No key separator found on line number " + std::to_string(read) +
                               ": '" + line + "'";
                --read;
                break;
            }
        }
        bool null_value = rs->null_marker && value == *rs->null_marker;
        if (key && rs->null_marker && *key == *rs->null_marker) {
            key.reset();
        }
        // librdkafka's V_ macros cast their arguments unparenthesised: pass plain values.
        const char* key_data = key ? key->data() : nullptr;
        size_t key_size = key ? key->size() : 0;
        char* value_data = null_value ? nullptr : value.data();
        size_t value_size = null_value ? 0 : value.size();
        int32_t partition = o.partition.value_or(RD_KAFKA_PARTITION_UA);
        for (;;) {
            rd_kafka_resp_err_t err = rd_kafka_producev(
                rk, RD_KAFKA_V_TOPIC(o.topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key_data, key_size),
                RD_KAFKA_V_VALUE(value_data, value_size), RD_KAFKA_V_END);
            if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL && !stop_requested()) {
                rd_kafka_poll(rk, 100);
                continue;
            }
            if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
                tally.account(err);  // refused outright: no delivery report follows
            }
            break;
        }
        rd_kafka_poll(rk, 0);
    }

    // Everything read is delivered (or has failed) within the timeout.
    auto deadline = std::chrono::steady_clock::now() + o.client.timeout;
    while (rd_kafka_outq_len(rk) > 0 && std::chrono::steady_clock::now() < deadline) {
        rd_kafka_flush(rk, 100);
    }
    rd_kafka_poll(rk, 0);

    if (reader_error) {
        return fail(*reader_error);
    }
    uint64_t missing = read - tally.delivered;
    if (missing > 0) {
        auto err = tally.first_error != RD_KAFKA_RESP_ERR_NO_ERROR
                       ? tally.first_error
                       : RD_KAFKA_RESP_ERR__MSG_TIMED_OUT;
        return fail(std::to_string(missing) + " of " + std::to_string(read) +
                    " records were not delivered to " + o.topic + ": " +
                    client->explain("delivery failed", err));
    }
    return 0;
}

}  // namespace

tool_command add_produce_command(CLI::App& app) {
    auto o = std::make_shared<produce_options>();
    auto* cmd = add_verb(app, "produce", "Send lines from stdin to a topic, one record per line");
    add_client_options(*cmd, o->client);
    cmd->add_option("--topic", o->topic, "Topic to produce to")->required();
    cmd->add_option("--property", o->properties,
                    "Line reader setting, name=value (repeatable): parse.key=true, "
                    "key.separator=<sep> (default TAB), ignore.error=true, null.marker=<s>");
    cmd->add_option("--producer-property", o->producer_properties,
                    "Producer setting, name=value (repeatable), e.g. linger.ms=20");
    cmd->add_option("--compression-type,--compression-codec", o->compression,
                    "none, gzip, snappy, lz4 or zstd")
        ->check(CLI::IsMember({"none", "gzip", "snappy", "lz4", "zstd"}));
    cmd->add_option("--acks,--request-required-acks", o->acks,
                    "Acknowledgements to wait for: all (-1), 1 or 0")
        ->check(CLI::IsMember({"all", "-1", "0", "1"}));
    cmd->add_option("--partition", o->partition,
                    "Send every record to this partition (default: by key, or spread)");
    return {cmd, [o] { return run_produce(*o); }};
}

}  // namespace samsa::tools
