// `samsa delete-records`: kafka-delete-records.sh — move a partition's log start
// offset forward, deleting every record before the given offset.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>

#include "tools/commands.h"
#include "tools/kafka_client.h"

namespace samsa::tools {

namespace {

struct delete_records_options {
    client_options client;
    std::string topic;
    int32_t partition = 0;
    int64_t offset = -1;
};

int run_delete_records(const delete_records_options& o) {
    auto client = kafka_client::create(client_kind::producer, o.client,
                                       {{"client.id", "samsa-delete-records"}});
    if (!client) {
        return fail(client.err());
    }
    auto md = client->metadata();
    if (!md) {
        return fail(md.err());
    }
    const topic_info* topic = md->find(o.topic);
    if (topic == nullptr || topic->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
        return fail("Topic '" + o.topic + "' does not exist");
    }
    bool known = false;
    for (const auto& p : topic->partitions) {
        known = known || p.id == o.partition;
    }
    if (!known) {
        return fail("Partition " + std::to_string(o.partition) + " of topic '" + o.topic +
                    "' does not exist");
    }
    partition_list_ptr parts(rd_kafka_topic_partition_list_new(1));
    // -1 is Kafka's "up to the high watermark" (RecordsToDelete.beforeOffset(-1)).
    rd_kafka_topic_partition_list_add(parts.get(), o.topic.c_str(), o.partition)->offset =
        o.offset < 0 ? RD_KAFKA_OFFSET_END : o.offset;
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
    cmd->add_option("--topic", o->topic, "Topic")->required();
    cmd->add_option("--partition", o->partition, "Partition")->check(CLI::NonNegativeNumber);
    cmd->add_option("--offset", o->offset,
                    "Delete records before this offset (-1: up to the high watermark)")
        ->required();
    return {cmd, [o] { return run_delete_records(*o); }};
}

}  // namespace samsa::tools
