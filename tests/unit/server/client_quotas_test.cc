// AlterClientQuotas (key 49) and DescribeClientQuotas (key 48) against the
// in-process broker, and a Produce over its client's producer_byte_rate
// answered with Kafka's throttle time; entities and filters Kafka refuses
// (ClientQuotaControlManager.validateEntity, ClientQuotasImage.describe) get
// its codes and messages. Each test names client ids of its own, so no other
// test's requests (client id "samsa-unit") meet a quota.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/alter_client_quotas_request.h"
#include "protocol/generated/alter_client_quotas_response.h"
#include "protocol/generated/describe_client_quotas_request.h"
#include "protocol/generated/describe_client_quotas_response.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"

namespace samsa::server::test {
namespace {

using protocol::alter_client_quotas_request;
using protocol::alter_client_quotas_response;
using protocol::describe_client_quotas_request;
using protocol::describe_client_quotas_response;
using protocol::fetch_request;
using protocol::fetch_response;

// A consumer fetch of partition 0 from offset 0 that does not wait, in
// session `session_id` at `epoch` (0, -1: a full fetch with / without one).
fetch_request consumer_fetch(const uuid& topic_id, int32_t session_id, int32_t epoch) {
    fetch_request req;
    req.replica_id = no_node;
    req.max_wait_ms = 0;
    req.min_bytes = 0;
    req.max_bytes = 1 << 20;
    req.session_id = session_id;
    req.session_epoch = epoch;
    if (epoch <= 0) {
        auto& t = req.topics.emplace_back();
        t.topic_id = topic_id;
        auto& p = t.partitions.emplace_back();
        p.partition = 0;
        p.partition_max_bytes = 1 << 20;
    }
    return req;
}

class client_quotas_test : public broker_test {
  protected:
    // Sets (a value) or removes (nullopt) `key` of client id `client`.
    alter_client_quotas_response::entry_data alter(const std::string& client,
                                                   const std::string& key,
                                                   std::optional<double> value,
                                                   bool validate_only = false) {
        alter_client_quotas_request req;
        req.validate_only = validate_only;
        auto& e = req.entries.emplace_back();
        auto& d = e.entity.emplace_back();
        d.entity_type = "client-id";
        d.entity_name = client;
        auto& op = e.ops.emplace_back();
        op.key = key;
        op.value = value.value_or(0);
        op.remove = !value;
        auto resp = broker().call<alter_client_quotas_response>(req, 1);
        if (resp.entries.size() != 1) {
            ADD_FAILURE() << "expected one entry";
            return {};
        }
        return resp.entries[0];
    }

    // The client id's quotas, as DescribeClientQuotas v`version` matches it exactly.
    std::map<std::string, double> quotas_of(const std::string& client, int16_t version = 1) {
        describe_client_quotas_request req;
        auto& c = req.components.emplace_back();
        c.entity_type = "client-id";
        c.match_type = 0;
        c.match = client;
        req.strict = true;
        auto resp = broker().call<describe_client_quotas_response>(req, version);
        EXPECT_ERROR(resp.error_code, error_code::none);
        std::map<std::string, double> out;
        if (!resp.entries) {
            ADD_FAILURE() << "no entries";
            return out;
        }
        for (const auto& e : *resp.entries) {
            EXPECT_EQ(e.entity.size(), 1u);
            for (const auto& v : e.values) {
                out[v.key] = v.value;
            }
        }
        return out;
    }

    // Quotas are metadata: a broker sees one once its image has it.
    void wait_for(const std::string& client, const std::map<std::string, double>& expected) {
        EXPECT_TRUE(broker_fixture::wait_until([&] { return quotas_of(client) == expected; }))
            << client;
    }
};

TEST_F(client_quotas_test, a_quota_is_set_described_in_both_versions_and_removed) {
    const auto client = unique_name("quota-client");
    auto r = alter(client, "producer_byte_rate", 1048576);
    ASSERT_ERROR(r.error_code, error_code::none);
    ASSERT_EQ(r.entity.size(), 1u);
    EXPECT_EQ(r.entity[0].entity_name, client);
    wait_for(client, {{"producer_byte_rate", 1048576}});
    EXPECT_EQ(quotas_of(client, 0),
              (std::map<std::string, double>{{"producer_byte_rate", 1048576}}));

    ASSERT_ERROR(alter(client, "producer_byte_rate", std::nullopt).error_code, error_code::none);
    wait_for(client, {});
}

TEST_F(client_quotas_test, validate_only_and_bad_values_change_nothing) {
    const auto client = unique_name("quota-client");
    ASSERT_ERROR(alter(client, "consumer_byte_rate", 5000, true).error_code, error_code::none);
    auto bad = alter(client, "consumer_byte_rate", 0.5);
    EXPECT_ERROR(bad.error_code, error_code::invalid_request);
    EXPECT_EQ(bad.error_message.value_or(""),
              "Configuration consumer_byte_rate must be a Long value");
    auto unknown = alter(client, "no_such_quota", 5);
    EXPECT_ERROR(unknown.error_code, error_code::invalid_request);
    EXPECT_EQ(unknown.error_message.value_or(""), "Invalid configuration key no_such_quota");
    EXPECT_TRUE(quotas_of(client).empty());
}

TEST_F(client_quotas_test, invalid_entities_are_refused_per_entry) {
    using entity_data = alter_client_quotas_request::entry_data::entity_data;
    auto entry = [](std::vector<entity_data> entity) {
        alter_client_quotas_request::entry_data e;
        e.entity = std::move(entity);
        auto& op = e.ops.emplace_back();
        op.key = "producer_byte_rate";
        op.value = 1000;
        op.remove = false;
        return e;
    };
    auto part = [](const std::string& type, std::optional<std::string> name) {
        entity_data d;
        d.entity_type = type;
        d.entity_name = std::move(name);
        return d;
    };
    const auto client = unique_name("quota-client");
    alter_client_quotas_request req;
    req.entries.push_back(entry({}));
    req.entries.push_back(entry({part("no-such-type", client)}));
    req.entries.push_back(entry({part("client-id", "")}));
    auto resp = broker().call<alter_client_quotas_response>(req, 1);
    ASSERT_EQ(resp.entries.size(), 3u);
    const char* messages[] = {
        "Invalid empty client quota entity",
        "Unhandled client quota entity type: no-such-type",
        "Empty client-id not supported",
    };
    for (size_t i = 0; i < 3; ++i) {
        SCOPED_TRACE(i);
        EXPECT_ERROR(resp.entries[i].error_code, error_code::invalid_request);
        EXPECT_EQ(resp.entries[i].error_message.value_or(""), messages[i]);
    }
    EXPECT_TRUE(quotas_of(client).empty());
}

TEST_F(client_quotas_test, invalid_describe_filters_are_refused) {
    auto describe = [&](std::vector<std::pair<std::string, int8_t>> components) {
        describe_client_quotas_request req;
        for (const auto& [type, match_type] : components) {
            auto& c = req.components.emplace_back();
            c.entity_type = type;
            c.match_type = match_type;
            c.match = std::nullopt;
        }
        return broker().call<describe_client_quotas_response>(req, 1);
    };
    auto twice = describe({{"client-id", 1}, {"client-id", 2}});
    EXPECT_ERROR(twice.error_code, error_code::invalid_request);
    EXPECT_EQ(twice.error_message.value_or(""),
              "Entity type client-id cannot appear more than once in the filter.");
    EXPECT_FALSE(twice.entries.has_value());

    auto unknown = describe({{"no-such-type", 2}});
    EXPECT_ERROR(unknown.error_code, error_code::unsupported_version);
    EXPECT_EQ(unknown.error_message.value_or(""), "Unsupported entity type no-such-type");
    EXPECT_FALSE(unknown.entries.has_value());

    auto mixed = describe({{"ip", 2}, {"user", 2}});
    EXPECT_ERROR(mixed.error_code, error_code::invalid_request);
    EXPECT_EQ(mixed.error_message.value_or(""),
              "Invalid entity filter component combination. IP filter component should not be "
              "used with user or clientId filter component.");
    EXPECT_FALSE(mixed.entries.has_value());
}

TEST_F(client_quotas_test, a_produce_over_the_clients_byte_rate_is_told_to_wait) {
    const auto topic = unique_name("quota-topic");
    broker().create_topic(topic);
    const auto slow = unique_name("quota-producer");
    ASSERT_ERROR(alter(slow, "producer_byte_rate", 100).error_code, error_code::none);
    wait_for(slow, {{"producer_byte_rate", 100}});

    // Each request is far over 100 B/s over the ten-second window: the append
    // happens, and the answer says how long to wait.
    auto first = broker().produce_request(topic, 0, 200, slow);
    ASSERT_EQ(first.responses.size(), 1u);
    EXPECT_ERROR(first.responses[0].partition_responses[0].error_code, error_code::none);
    EXPECT_GT(first.throttle_time_ms, 0);
    // Kafka's formula: (rate - quota) / quota * window, which grows with what was sent.
    auto second = broker().produce_request(topic, 0, 200, slow);
    EXPECT_GT(second.throttle_time_ms, first.throttle_time_ms);
    // Another client id is not slowed.
    EXPECT_EQ(broker().produce_request(topic, 0, 200).throttle_time_ms, 0);

    ASSERT_ERROR(alter(slow, "producer_byte_rate", std::nullopt).error_code, error_code::none);
}

TEST_F(client_quotas_test, a_fetch_over_the_consumers_byte_rate_is_answered_empty) {
    const auto topic = unique_name("quota-topic");
    const uuid id = broker().create_topic(topic);
    ASSERT_ERROR(broker().produce(topic, 0, 8).error_code, error_code::none);
    const auto slow = unique_name("quota-consumer");
    ASSERT_ERROR(alter(slow, "consumer_byte_rate", 10).error_code, error_code::none);
    wait_for(slow, {{"consumer_byte_rate", 10}});

    // Any response with the records is over 10 B/s across the window: Kafka
    // answers with no partitions and the time to wait, and takes the bytes
    // not sent back off the rate, so asking again is not told to wait longer.
    auto first =
        broker().call<fetch_response>(consumer_fetch(id, 0, 0), 13, listener_kind::client, slow);
    EXPECT_ERROR(first.error_code, error_code::none);
    EXPECT_GT(first.throttle_time_ms, 0);
    EXPECT_TRUE(first.responses.empty());
    EXPECT_EQ(first.session_id, 0);  // a full fetch's new session is not kept
    auto again =
        broker().call<fetch_response>(consumer_fetch(id, 0, -1), 13, listener_kind::client, slow);
    EXPECT_TRUE(again.responses.empty());
    EXPECT_GT(again.throttle_time_ms, 0);
    EXPECT_LE(again.throttle_time_ms, first.throttle_time_ms);

    // A session opened by another client id: the throttled incremental fetch
    // keeps it, and its next epoch still serves the records.
    auto open = broker().call<fetch_response>(consumer_fetch(id, 0, 0), 13);
    ASSERT_NE(open.session_id, 0);
    ASSERT_EQ(open.responses.size(), 1u);
    auto throttled = broker().call<fetch_response>(consumer_fetch(id, open.session_id, 1), 13,
                                                   listener_kind::client, slow);
    EXPECT_EQ(throttled.session_id, open.session_id);
    EXPECT_TRUE(throttled.responses.empty());
    EXPECT_GT(throttled.throttle_time_ms, 0);
    auto next = broker().call<fetch_response>(consumer_fetch(id, open.session_id, 2), 13);
    EXPECT_ERROR(next.error_code, error_code::none);
    EXPECT_EQ(next.throttle_time_ms, 0);

    ASSERT_ERROR(alter(slow, "consumer_byte_rate", std::nullopt).error_code, error_code::none);
}

}  // namespace
}  // namespace samsa::server::test
