#include "tools/group_offsets_delete.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>

namespace samsa::tools {

namespace {

// Kafka's message for the group-level answer (ConsumerGroupCommand.deleteOffsets).
std::string top_level_message(rd_kafka_resp_err_t err, const std::string& group,
                              const std::string& topics) {
    switch (err) {
        case RD_KAFKA_RESP_ERR_NO_ERROR:
            return "Request succeed for deleting offsets with topic " + topics + " group " + group;
        case RD_KAFKA_RESP_ERR_INVALID_GROUP_ID:
            return "Error: '" + group + "' is not valid.";
        case RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND:
            return "Error: '" + group + "' does not exist.";
        case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
            return "Error: Access to '" + group + "' is not authorized.";
        case RD_KAFKA_RESP_ERR_NON_EMPTY_GROUP:
            return "Error: Deleting offsets of a consumer group '" + group +
                   "' is forbidden if the group is not empty.";
        case RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC:
        case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
        case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
            return "Error: Encounter some partition level error, see the follow-up details:";
        default:
            return std::string("Error: Encounter some unknown error: ") + rd_kafka_err2name(err);
    }
}

}  // namespace

int run_delete_group_offsets(kafka_client& client, const std::string& group,
                             const std::vector<std::string>& topics) {
    auto md = client.metadata();
    if (!md) {
        return fail(md.err());
    }
    partition_list_ptr parts(rd_kafka_topic_partition_list_new(1));
    std::string topic_names;
    for (const auto& spec : topics) {
        const auto colon = spec.find(':');
        const std::string topic = spec.substr(0, colon);
        topic_names += (topic_names.empty() ? "" : ", ") + topic;
        if (colon != std::string::npos) {
            size_t start = colon + 1;
            while (start <= spec.size()) {
                size_t comma = spec.find(',', start);
                const std::string p =
                    spec.substr(start, comma == std::string::npos ? comma : comma - start);
                char* end = nullptr;
                const long v = std::strtol(p.c_str(), &end, 10);
                if (p.empty() || *end != '\0' || v < 0) {
                    return fail("Invalid partition '" + p + "' in --topic " + spec);
                }
                rd_kafka_topic_partition_list_add(parts.get(), topic.c_str(), int32_t(v));
                if (comma == std::string::npos) {
                    break;
                }
                start = comma + 1;
            }
            continue;
        }
        const topic_info* t = md->find(topic);
        if (t == nullptr || t->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
            // Asked of the broker anyway, which answers UNKNOWN_TOPIC_OR_PARTITION.
            rd_kafka_topic_partition_list_add(parts.get(), topic.c_str(), 0);
            continue;
        }
        for (const auto& p : t->partitions) {
            rd_kafka_topic_partition_list_add(parts.get(), topic.c_str(), p.id);
        }
    }
    rd_kafka_DeleteConsumerGroupOffsets_t* del =
        rd_kafka_DeleteConsumerGroupOffsets_new(group.c_str(), parts.get());
    auto ev = client.admin_call(
        RD_KAFKA_ADMIN_OP_DELETECONSUMERGROUPOFFSETS, "deleting offsets failed",
        [&](rd_kafka_AdminOptions_t* opts, rd_kafka_queue_t* q) {
            rd_kafka_DeleteConsumerGroupOffsets(client.handle(), &del, 1, opts, q);
        });
    rd_kafka_DeleteConsumerGroupOffsets_destroy(del);
    if (!ev) {
        // librdkafka fails the whole call on a group-level error.
        const auto code = rd_kafka_resp_err_t(int(ev.err().code));
        if (code == RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND ||
            code == RD_KAFKA_RESP_ERR_INVALID_GROUP_ID ||
            code == RD_KAFKA_RESP_ERR_NON_EMPTY_GROUP ||
            code == RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED) {
            std::printf("\n%s\n", top_level_message(code, group, topic_names).c_str());
            return 1;
        }
        return fail(ev.err());
    }
    size_t n = 0;
    const rd_kafka_group_result_t** results = rd_kafka_DeleteConsumerGroupOffsets_result_groups(
        rd_kafka_event_DeleteConsumerGroupOffsets_result(ev->get()), &n);
    if (n != 1) {
        return fail("deleting offsets failed: no result for group " + group);
    }
    const rd_kafka_error_t* top = rd_kafka_group_result_error(results[0]);
    rd_kafka_resp_err_t top_err = top ? rd_kafka_error_code(top) : RD_KAFKA_RESP_ERR_NO_ERROR;
    struct row {
        std::string topic;
        int32_t partition;
        std::string status;
    };
    // Sorted as Kafka sorts them: by topic and partition joined as text.
    std::map<std::string, row> rows;
    const rd_kafka_topic_partition_list_t* done = rd_kafka_group_result_partitions(results[0]);
    bool partition_error = false;
    for (int i = 0; done && i < done->cnt; ++i) {
        const auto& p = done->elems[i];
        partition_error |= p.err != RD_KAFKA_RESP_ERR_NO_ERROR;
        rows[std::string(p.topic) + std::to_string(p.partition)] = {
            p.topic, p.partition,
            p.err == RD_KAFKA_RESP_ERR_NO_ERROR ? "Successful"
                                                : std::string("Error: ") + rd_kafka_err2str(p.err)};
    }
    // librdkafka reports a partition-level refusal as the group's too.
    if (top_err == RD_KAFKA_RESP_ERR_NO_ERROR && partition_error) {
        top_err = RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC;
    }
    const std::string message = top_level_message(top_err, group, topic_names);
    std::printf("%s%s\n", top_err == RD_KAFKA_RESP_ERR_NO_ERROR ? "" : "\n", message.c_str());
    std::printf("\n%-30s %-15s %-15s\n", "TOPIC", "PARTITION", "STATUS");
    for (const auto& [key, r] : rows) {
        std::printf("%-30s %-15d %-15s\n", r.topic.c_str(), r.partition, r.status.c_str());
    }
    return top_err == RD_KAFKA_RESP_ERR_NO_ERROR && !partition_error ? 0 : 1;
}

}  // namespace samsa::tools
