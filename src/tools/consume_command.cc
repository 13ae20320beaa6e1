// `samsa consume`: kafka-console-consumer.sh — print a topic's records to stdout.
//
// Without --group the partitions are assigned directly (no group coordinator,
// nothing committed), which is what the console consumer does with --partition;
// with --group it subscribes as a member of that group and commits its progress.
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>

#include "tools/commands.h"
#include "tools/kafka_client.h"
#include "tools/record_formatter.h"
#include "tools/stop_signal.h"

namespace samsa::tools {

namespace {

using steady = std::chrono::steady_clock;

struct consume_options {
    client_options client;
    std::string topic;
    // --include: a regular expression of the topics to subscribe to.
    std::string include;
    std::optional<std::string> group;
    bool from_beginning = false;
    std::optional<int32_t> partition;
    std::optional<std::string> offset;
    std::optional<int64_t> max_messages;
    std::optional<int64_t> idle_timeout_ms;
    std::vector<std::string> properties;
    std::vector<std::string> consumer_properties;
    std::string isolation_level = "read_uncommitted";
};

// "earliest", "latest" or an offset >= 0 (Kafka's --offset).
std::optional<int64_t> parse_start_offset(const std::string& text) {
    if (text == "earliest") {
        return RD_KAFKA_OFFSET_BEGINNING;
    }
    if (text == "latest") {
        return RD_KAFKA_OFFSET_END;
    }
    try {
        size_t used = 0;
        long long v = std::stoll(text, &used);
        if (used == text.size() && v >= 0) {
            return v;
        }
    } catch (...) {
    }
    return std::nullopt;
}

record_view view_of(const rd_kafka_message_t* m, bool with_headers) {
    record_view r;
    r.partition = m->partition;
    r.offset = m->offset;
    rd_kafka_timestamp_type_t tstype = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
    r.timestamp = rd_kafka_message_timestamp(m, &tstype);
    r.ts_kind = tstype == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? timestamp_kind::create_time
                : tstype == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? timestamp_kind::log_append_time
                                                               : timestamp_kind::none;
    if (m->key != nullptr) {
        r.key = std::string_view(static_cast<const char*>(m->key), m->key_len);
    }
    if (m->payload != nullptr) {
        r.value = std::string_view(static_cast<const char*>(m->payload), m->len);
    }
    rd_kafka_headers_t* headers = nullptr;
    if (with_headers && rd_kafka_message_headers(m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
        const char* name;
        const void* value;
        size_t size;
        for (size_t i = 0; rd_kafka_header_get_all(headers, i, &name, &value, &size) ==
                           RD_KAFKA_RESP_ERR_NO_ERROR;
             ++i) {
            std::optional<std::string_view> v;
            if (value != nullptr) {
                v = std::string_view(static_cast<const char*>(value), size);
            }
            r.headers.emplace_back(name, v);
        }
    }
    return r;
}

// Errors after which waiting longer cannot help.
bool is_fatal(rd_kafka_resp_err_t err) {
    switch (err) {
        case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
        case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
        case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
        case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
        case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
        case RD_KAFKA_RESP_ERR_INVALID_GROUP_ID:
        case RD_KAFKA_RESP_ERR__FATAL:
            return true;
        default:
            return false;
    }
}

int run_consume(const consume_options& o) {
    if (o.topic.empty() == o.include.empty()) {
        return fail("Exactly one of include/topic is required.");
    }
    if (!o.include.empty() && o.partition) {
        return fail("Options --include and --partition cannot be given together.");
    }
    if (o.offset && !o.partition) {
        return fail("The partition is required when offset is specified.");
    }
    if (o.offset && o.from_beginning) {
        return fail("Options --from-beginning and --offset cannot be given together.");
    }
    std::optional<int64_t> start_offset;
    if (o.offset) {
        start_offset = parse_start_offset(*o.offset);
        if (!start_offset) {
            return fail("--offset must be 'earliest', 'latest' or a non-negative number, got '" +
                        *o.offset + "'");
        }
    }
    auto props = parse_key_values(o.properties);
    if (!props) {
        return fail(props.err());
    }
    auto formatter = record_formatter::from_properties(*props);
    if (!formatter) {
        return fail(formatter.err());
    }
    auto extra = parse_key_values(o.consumer_properties);
    if (!extra) {
        return fail(extra.err());
    }
    property_list settings = {
        {"client.id", "samsa-console-consumer"},
        {"auto.offset.reset", o.from_beginning ? "earliest" : "latest"},
        {"enable.partition.eof", "false"},
        {"isolation.level", o.isolation_level},
    };
    if (o.group) {
        settings.emplace_back("group.id", *o.group);
    } else {
        // librdkafka 2.0 refuses assign() without a group id; this one never joins
        // (nothing is subscribed) and never commits.
        settings.emplace_back("group.id", "samsa-console-consumer-" + std::to_string(::getpid()));
        settings.emplace_back("enable.auto.commit", "false");
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
    const topic_info* topic = o.include.empty() ? md->find(o.topic) : nullptr;
    if (o.include.empty() &&
        (topic == nullptr || topic->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)) {
        return fail("Topic '" + o.topic + "' does not exist");
    }
    if (o.partition) {
        bool found = false;
        for (const auto& p : topic->partitions) {
            found = found || p.id == *o.partition;
        }
        if (!found) {
            return fail("Partition " + std::to_string(*o.partition) + " of topic '" + o.topic +
                        "' does not exist");
        }
    }

    rd_kafka_poll_set_consumer(rk);
    // --include subscribes too (with the generated group when none is given,
    // as Kafka's console consumer does): the group follows topics created later.
    bool subscribed = (o.group && !o.partition) || !o.include.empty();
    if (subscribed) {
        partition_list_ptr topics(rd_kafka_topic_partition_list_new(1));
        // A whole topic name must match, as Java's Pattern.matches asks.
        const std::string name = o.include.empty() ? o.topic : "^(" + o.include + ")$";
        rd_kafka_topic_partition_list_add(topics.get(), name.c_str(), RD_KAFKA_PARTITION_UA);
        if (auto err = rd_kafka_subscribe(rk, topics.get())) {
            return fail(client->explain("subscribe failed", err));
        }
    } else {
        // In a group, a partition resumes at the group's committed offset (and
        // auto.offset.reset, i.e. --from-beginning, decides when there is none).
        int64_t fallback = o.group            ? RD_KAFKA_OFFSET_STORED
                           : o.from_beginning ? RD_KAFKA_OFFSET_BEGINNING
                                              : RD_KAFKA_OFFSET_END;
        int64_t start = start_offset.value_or(fallback);
        partition_list_ptr parts(rd_kafka_topic_partition_list_new(int(topic->partitions.size())));
        for (const auto& p : topic->partitions) {
            if (!o.partition || p.id == *o.partition) {
                rd_kafka_topic_partition_list_add(parts.get(), o.topic.c_str(), p.id)->offset =
                    start;
            }
        }
        if (auto err = rd_kafka_assign(rk, parts.get())) {
            return fail(client->explain("assign failed", err));
        }
    }

    install_stop_handlers();
    int64_t processed = 0;
    auto started = steady::now();
    auto last_record = started;
    bool assigned = !subscribed;
    std::optional<std::string> error;
    rd_kafka_resp_err_t last_error = RD_KAFKA_RESP_ERR_NO_ERROR;
    std::string last_error_text;
    while (!stop_requested() && (!o.max_messages || processed < *o.max_messages)) {
        auto now = steady::now();
        if (o.idle_timeout_ms &&
            now - last_record >= std::chrono::milliseconds(*o.idle_timeout_ms)) {
            break;
        }
        if (!assigned) {
            rd_kafka_topic_partition_list_t* current = nullptr;
            if (rd_kafka_assignment(rk, &current) == RD_KAFKA_RESP_ERR_NO_ERROR && current) {
                assigned = current->cnt > 0;
                rd_kafka_topic_partition_list_destroy(current);
            }
            // A member that never gets partitions means the group could not be joined.
            if (!assigned && now - started >= o.client.timeout) {
                std::string why = last_error != RD_KAFKA_RESP_ERR_NO_ERROR
                                      ? " (" + last_error_text + ")"
                                      : std::string();
                error = "did not join consumer group '" +
                        (o.group ? *o.group : std::string("(generated)")) + "' within " +
                        format_duration(o.client.timeout) + why;
                break;
            }
        }
        rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 100);
        if (m == nullptr) {
            continue;
        }
        if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            last_error = m->err;
            last_error_text = rd_kafka_message_errstr(m);
            rd_kafka_message_destroy(m);
            if (is_fatal(last_error)) {
                error = client->explain("consume failed", last_error, last_error_text);
                break;
            }
            continue;  // transient (a broker restarting): the client retries
        }
        std::string text = formatter->format(view_of(m, formatter->wants_headers()));
        rd_kafka_message_destroy(m);
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
        ++processed;
        last_record = steady::now();
        assigned = true;
    }
    client->close_consumer();
    std::fprintf(stderr, "Processed a total of %lld messages\n", static_cast<long long>(processed));
    if (error) {
        return fail(*error);
    }
    return 0;
}

}  // namespace

tool_command add_consume_command(CLI::App& app) {
    auto o = std::make_shared<consume_options>();
    auto* cmd = add_verb(app, "consume", "Print the records of a topic to stdout");
    add_client_options(*cmd, o->client);
    cmd->add_option("--topic", o->topic, "Topic to consume");
    cmd->add_option("--include", o->include,
                    "Regular expression of the topics to consume (instead of --topic); topics "
                    "created later that match are consumed too");
    cmd->add_option("--group", o->group,
                    "Consume as a member of this consumer group and commit offsets "
                    "(default: no group, read the partitions directly)");
    cmd->add_flag("--from-beginning", o->from_beginning,
                  "Start at the earliest offset when there is no committed one "
                  "(default: only new records)");
    cmd->add_option("--partition", o->partition, "Consume only this partition");
    cmd->add_option("--offset", o->offset,
                    "With --partition: start offset, 'earliest', 'latest' or a number "
                    "(default: latest, or the group's committed offset with --group)");
    cmd->add_option("--max-messages", o->max_messages, "Exit after this many records")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--timeout-ms", o->idle_timeout_ms,
                    "Exit when no record arrives for this many milliseconds "
                    "(default: wait until Ctrl-C)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--property", o->properties,
                    "Output setting, name=value (repeatable): print.key, print.timestamp, "
                    "print.offset, print.partition, print.headers, print.value, key.separator, "
                    "line.separator, headers.separator, null.literal");
    cmd->add_option("--consumer-property", o->consumer_properties,
                    "Consumer setting, name=value (repeatable)");
    cmd->add_option("--isolation-level", o->isolation_level, "read_uncommitted or read_committed")
        ->check(CLI::IsMember({"read_uncommitted", "read_committed"}));
    return {cmd, [o] { return run_consume(*o); }};
}

}  // namespace samsa::tools
