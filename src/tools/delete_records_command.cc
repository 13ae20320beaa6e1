// `samsa delete-records`: kafka-delete-records.sh — move partitions' log start
// offsets forward, deleting every record before the given offsets. Kafka's form
// names them in a file:
//
//   --offset-json-file F   {"partitions":[{"topic":"t","partition":0,"offset":3}],"version":1}
//
// and --topic/--partition/--offset name one partition on the command line.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "tools/commands.h"
#include "tools/json_file.h"
#include "tools/kafka_client.h"

namespace samsa::tools {

namespace {

struct delete_records_options {
    client_options client;
    std::string offset_json_file;
    std::string topic;
    int32_t partition = 0;
    std::optional<int64_t> offset;
};

struct record_deletion {
    std::string topic;
    int32_t partition = 0;
    int64_t offset = -1;  // -1: up to the high watermark
};

// Kafka's DeleteRecordsCommand.parseOffsetJsonStringWithoutDedup, and its
// refusal of a partition named twice.
result<std::vector<record_deletion>> read_offsets_file(const std::string& path) {
    auto j = read_json_file(path);
    if (!j) {
        return j.err();
    }
    const auto bad = [&](const std::string& why) {
        return error(error_code::invalid_config, path + ": " + why);
    };
    if (j->is_discarded() || !j->is_object() || !j->contains("partitions") ||
        !(*j)["partitions"].is_array()) {
        return bad(
            "expected {\"partitions\":[{\"topic\",\"partition\",\"offset\"}],\"version\":1}");
    }
    std::vector<record_deletion> out;
    std::set<std::pair<std::string, int32_t>> seen, duplicates;
    for (const auto& p : (*j)["partitions"]) {
        if (!p.is_object() || !p.contains("topic") || !p["topic"].is_string() ||
            !p.contains("partition") || !p["partition"].is_number_integer() ||
            !p.contains("offset") || !p["offset"].is_number_integer()) {
            return bad("each partition needs \"topic\", \"partition\" and \"offset\"");
        }
        record_deletion d{p["topic"].get<std::string>(), p["partition"].get<int32_t>(),
                          p["offset"].get<int64_t>()};
        if (!seen.insert({d.topic, d.partition}).second) {
            duplicates.insert({d.topic, d.partition});
        }
        out.push_back(std::move(d));
    }
    if (!duplicates.empty()) {
        std::string names;
        for (const auto& [t, p] : duplicates) {
            names += (names.empty() ? "" : ",") + t + "-" + std::to_string(p);
        }
        return error(error_code::invalid_config,
                     "Offset json file contains duplicate topic partitions: " + names);
    }
    if (out.empty()) {
        return bad("no partitions");
    }
    return out;
}

int run_delete_records(const delete_records_options& o) {
    std::vector<record_deletion> wanted;
    if (!o.offset_json_file.empty()) {
        if (!o.topic.empty() || o.offset) {
            return fail("--offset-json-file cannot be used with --topic, --partition or --offset");
        }
        auto file = read_offsets_file(o.offset_json_file);
        if (!file) {
            return fail(file.err());
        }
        wanted = std::move(*file);
    } else {
        if (o.topic.empty() || !o.offset) {
            return fail(
                "Missing required argument \"[offset-json-file]\" (or --topic and --offset)");
        }
        wanted.push_back({o.topic, o.partition, *o.offset});
    }
    auto client = kafka_client::create(client_kind::producer, o.client,
                                       {{"client.id", "samsa-delete-records"}});
    if (!client) {
        return fail(client.err());
    }
    auto md = client->metadata();
    if (!md) {
        return fail(md.err());
    }
    partition_list_ptr parts(rd_kafka_topic_partition_list_new(int(wanted.size())));
    for (const auto& w : wanted) {
        const topic_info* topic = md->find(w.topic);
        if (topic == nullptr || topic->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
            return fail("Topic '" + w.topic + "' does not exist");
        }
        bool known = false;
        for (const auto& p : topic->partitions) {
            known = known || p.id == w.partition;
        }
        if (!known) {
            return fail("Partition " + std::to_string(w.partition) + " of topic '" + w.topic +
                        "' does not exist");
        }
        // -1 is Kafka's "up to the high watermark" (RecordsToDelete.beforeOffset(-1)).
        rd_kafka_topic_partition_list_add(parts.get(), w.topic.c_str(), w.partition)->offset =
            w.offset < 0 ? RD_KAFKA_OFFSET_END : w.offset;
    }
    rd_kafka_DeleteRecords_t* del = rd_kafka_DeleteRecords_new(parts.get());
    std::printf("Executing records delete operation\n");
    std::fflush(stdout);
    auto ev = client->admin_call(RD_KAFKA_ADMIN_OP_DELETERECORDS, "delete records failed",
                                 [&](rd_kafka_AdminOptions_t* opts, rd_kafka_queue_t* q) {
                                     rd_kafka_DeleteRecords(client->handle(), &del, 1, opts, q);
                                 });
    rd_kafka_DeleteRecords_destroy(del);
    if (!ev) {
        return fail(ev.err());
    }
    const rd_kafka_topic_partition_list_t* result =
        rd_kafka_DeleteRecords_result_offsets(rd_kafka_event_DeleteRecords_result(ev->get()));
    std::printf("Records delete operation completed:\n");
    int code = 0;
    for (int i = 0; result && i < result->cnt; ++i) {
        const auto& p = result->elems[i];
        if (p.err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            std::printf("partition: %s-%d\terror: %s\n", p.topic, p.partition,
                        rd_kafka_err2str(p.err));
            std::fprintf(stderr, "Error: deleting records of %s-%d failed: %s\n", p.topic,
                         p.partition, rd_kafka_err2str(p.err));
            code = 1;
        } else {
            std::printf("partition: %s-%d\tlow_watermark: %lld\n", p.topic, p.partition,
                        static_cast<long long>(p.offset));
        }
    }
    return code;
}

}  // namespace

tool_command add_delete_records_command(CLI::App& app) {
    auto o = std::make_shared<delete_records_options>();
    auto* cmd =
        add_verb(app, "delete-records", "Delete the records of a partition before an offset");
    add_client_options(*cmd, o->client);
    cmd->add_option("--offset-json-file", o->offset_json_file,
                    "{\"partitions\":[{\"topic\":\"t\",\"partition\":0,\"offset\":3}],"
                    "\"version\":1}: the records before each offset are deleted (-1: up to "
                    "the high watermark)")
        ->check(CLI::ExistingFile);
    cmd->add_option("--topic", o->topic, "Topic (without --offset-json-file)");
    cmd->add_option("--partition", o->partition, "Partition")->check(CLI::NonNegativeNumber);
    cmd->add_option("--offset", o->offset,
                    "Delete records before this offset (-1: up to the high watermark)");
    return {cmd, [o] { return run_delete_records(*o); }};
}

}  // namespace samsa::tools
