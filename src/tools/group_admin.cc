#include "tools/group_admin.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace samsa::tools {

namespace {

std::string error_text(const rd_kafka_error_t* e) {
    const char* s = rd_kafka_error_string(e);
    return s && *s ? s : rd_kafka_err2str(rd_kafka_error_code(e));
}

// A per-group (or per-broker) error, explained like a failed call: a timeout with
// no broker ever reached says so.
samsa::error explained(kafka_client& client, const std::string& what, const rd_kafka_error_t* e) {
    return tool_error(client.explain(what, rd_kafka_error_code(e), error_text(e)));
}

result<group_description> describe_result(kafka_client& client, const std::string& group,
                                          const rd_kafka_ConsumerGroupDescription_t* g) {
    group_description out;
    out.group_id = group;
    if (const rd_kafka_error_t* e = rd_kafka_ConsumerGroupDescription_error(g)) {
        if (rd_kafka_error_code(e) == RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND) {
            out.state = "Dead";
            return out;
        }
        return explained(client, "describing group '" + group + "' failed", e);
    }
    out.state = rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupDescription_state(g));
    if (const char* a = rd_kafka_ConsumerGroupDescription_partition_assignor(g)) {
        out.assignor = a;
    }
    if (const rd_kafka_Node_t* c = rd_kafka_ConsumerGroupDescription_coordinator(g)) {
        out.coordinator = {rd_kafka_Node_id(c), rd_kafka_Node_host(c), rd_kafka_Node_port(c)};
    }
    for (size_t i = 0; i < rd_kafka_ConsumerGroupDescription_member_count(g); ++i) {
        const rd_kafka_MemberDescription_t* m = rd_kafka_ConsumerGroupDescription_member(g, i);
        group_member gm;
        gm.consumer_id = rd_kafka_MemberDescription_consumer_id(m);
        if (const char* gi = rd_kafka_MemberDescription_group_instance_id(m)) {
            gm.group_instance_id = gi;
        }
        gm.client_id = rd_kafka_MemberDescription_client_id(m);
        gm.host = rd_kafka_MemberDescription_host(m);
        if (const rd_kafka_MemberAssignment_t* a = rd_kafka_MemberDescription_assignment(m)) {
            if (const rd_kafka_topic_partition_list_t* parts =
                    rd_kafka_MemberAssignment_partitions(a)) {
                for (int p = 0; p < parts->cnt; ++p) {
                    gm.assignment.emplace_back(parts->elems[p].topic, parts->elems[p].partition);
                }
            }
        }
        std::sort(gm.assignment.begin(), gm.assignment.end());
        out.members.push_back(std::move(gm));
    }
    return out;
}

}  // namespace

result<std::vector<group_listing>> list_groups(kafka_client& client) {
    auto ev = client.admin_call(RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS, "listing groups failed",
                                [&](rd_kafka_AdminOptions_t* opts, rd_kafka_queue_t* q) {
                                    rd_kafka_ListConsumerGroups(client.handle(), opts, q);
                                });
    if (!ev) {
        return ev.err();
    }
    const auto* res = rd_kafka_event_ListConsumerGroups_result(ev->get());
    size_t nerr = 0;
    const rd_kafka_error_t** errors = rd_kafka_ListConsumerGroups_result_errors(res, &nerr);
    if (nerr > 0) {
        return explained(client, "listing groups failed", errors[0]);
    }
    size_t n = 0;
    const rd_kafka_ConsumerGroupListing_t** groups =
        rd_kafka_ListConsumerGroups_result_valid(res, &n);
    std::vector<group_listing> out;
    for (size_t i = 0; i < n; ++i) {
        out.push_back(
            {rd_kafka_ConsumerGroupListing_group_id(groups[i]),
             rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupListing_state(groups[i]))});
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.group_id < b.group_id; });
    return out;
}

result<group_description> describe_group(kafka_client& client, const std::string& group) {
    const char* ids[] = {group.c_str()};
    // The coordinator may still be loading the group (just elected, or just
    // created the offsets topic), or be moving: retriable errors, which
    // Kafka's admin client retries within its timeout, and so does this.
    const auto deadline = std::chrono::steady_clock::now() + client.timeout();
    for (;;) {
        auto ev = client.admin_call(
            RD_KAFKA_ADMIN_OP_DESCRIBECONSUMERGROUPS, "describing group '" + group + "' failed",
            [&](rd_kafka_AdminOptions_t* opts, rd_kafka_queue_t* q) {
                rd_kafka_DescribeConsumerGroups(client.handle(), ids, 1, opts, q);
            });
        if (!ev) {
            return ev.err();
        }
        size_t n = 0;
        const rd_kafka_ConsumerGroupDescription_t** groups =
            rd_kafka_DescribeConsumerGroups_result_groups(
                rd_kafka_event_DescribeConsumerGroups_result(ev->get()), &n);
        if (n != 1) {
            return tool_error("describing group '" + group + "' returned no description");
        }
        const rd_kafka_error_t* e = rd_kafka_ConsumerGroupDescription_error(groups[0]);
        const auto code = e ? rd_kafka_error_code(e) : RD_KAFKA_RESP_ERR_NO_ERROR;
        const bool retriable = code == RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS ||
                               code == RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE ||
                               code == RD_KAFKA_RESP_ERR_NOT_COORDINATOR;
        if (retriable && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));  // retry.backoff.ms
            continue;
        }
        return describe_result(client, group, groups[0]);
    }
}

result<std::map<topic_partition, int64_t>> committed_offsets(kafka_client& client,
                                                             const std::string& group) {
    rd_kafka_ListConsumerGroupOffsets_t* req =
        rd_kafka_ListConsumerGroupOffsets_new(group.c_str(), nullptr);
    auto ev =
        client.admin_call(RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS,
                          "reading the offsets of group '" + group + "' failed",
                          [&](rd_kafka_AdminOptions_t* opts, rd_kafka_queue_t* q) {
                              rd_kafka_ListConsumerGroupOffsets(client.handle(), &req, 1, opts, q);
                          });
    rd_kafka_ListConsumerGroupOffsets_destroy(req);
    if (!ev) {
        return ev.err();
    }
    size_t n = 0;
    const rd_kafka_group_result_t** groups = rd_kafka_ListConsumerGroupOffsets_result_groups(
        rd_kafka_event_ListConsumerGroupOffsets_result(ev->get()), &n);
    std::map<topic_partition, int64_t> out;
    for (size_t i = 0; i < n; ++i) {
        if (const rd_kafka_error_t* e = rd_kafka_group_result_error(groups[i])) {
            return explained(client, "reading the offsets of group '" + group + "' failed", e);
        }
        const rd_kafka_topic_partition_list_t* parts = rd_kafka_group_result_partitions(groups[i]);
        for (int p = 0; parts && p < parts->cnt; ++p) {
            const auto& tp = parts->elems[p];
            if (tp.err == RD_KAFKA_RESP_ERR_NO_ERROR && tp.offset >= 0) {
                out[{tp.topic, tp.partition}] = tp.offset;
            }
        }
    }
    return out;
}

status alter_committed_offsets(kafka_client& client, const std::string& group,
                               const std::map<topic_partition, int64_t>& offsets) {
    partition_list_ptr parts(rd_kafka_topic_partition_list_new(int(offsets.size())));
    for (const auto& [tp, offset] : offsets) {
        rd_kafka_topic_partition_list_add(parts.get(), tp.first.c_str(), tp.second)->offset =
            offset;
    }
    rd_kafka_AlterConsumerGroupOffsets_t* req =
        rd_kafka_AlterConsumerGroupOffsets_new(group.c_str(), parts.get());
    auto ev =
        client.admin_call(RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS,
                          "committing the offsets of group '" + group + "' failed",
                          [&](rd_kafka_AdminOptions_t* opts, rd_kafka_queue_t* q) {
                              rd_kafka_AlterConsumerGroupOffsets(client.handle(), &req, 1, opts, q);
                          });
    rd_kafka_AlterConsumerGroupOffsets_destroy(req);
    if (!ev) {
        return ev.err();
    }
    size_t n = 0;
    const rd_kafka_group_result_t** groups = rd_kafka_AlterConsumerGroupOffsets_result_groups(
        rd_kafka_event_AlterConsumerGroupOffsets_result(ev->get()), &n);
    for (size_t i = 0; i < n; ++i) {
        if (const rd_kafka_error_t* e = rd_kafka_group_result_error(groups[i])) {
            return explained(client, "committing the offsets of group '" + group + "' failed", e);
        }
        const rd_kafka_topic_partition_list_t* res = rd_kafka_group_result_partitions(groups[i]);
        for (int p = 0; res && p < res->cnt; ++p) {
            if (res->elems[p].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
                return tool_error("committing the offset of " + std::string(res->elems[p].topic) +
                                  "-" + std::to_string(res->elems[p].partition) +
                                  " failed: " + rd_kafka_err2str(res->elems[p].err));
            }
        }
    }
    return {};
}

result<std::map<std::string, std::string>> delete_groups(kafka_client& client,
                                                         const std::vector<std::string>& groups) {
    std::vector<rd_kafka_DeleteGroup_t*> dels;
    for (const auto& g : groups) {
        dels.push_back(rd_kafka_DeleteGroup_new(g.c_str()));
    }
    auto ev = client.admin_call(RD_KAFKA_ADMIN_OP_DELETEGROUPS, "deleting groups failed",
                                [&](rd_kafka_AdminOptions_t* opts, rd_kafka_queue_t* q) {
                                    rd_kafka_DeleteGroups(client.handle(), dels.data(), dels.size(),
                                                          opts, q);
                                });
    rd_kafka_DeleteGroup_destroy_array(dels.data(), dels.size());
    if (!ev) {
        return ev.err();
    }
    size_t n = 0;
    const rd_kafka_group_result_t** results =
        rd_kafka_DeleteGroups_result_groups(rd_kafka_event_DeleteGroups_result(ev->get()), &n);
    std::map<std::string, std::string> out;
    for (size_t i = 0; i < n; ++i) {
        const rd_kafka_error_t* e = rd_kafka_group_result_error(results[i]);
        out[rd_kafka_group_result_name(results[i])] = e ? error_text(e) : "";
    }
    return out;
}

}  // namespace samsa::tools
