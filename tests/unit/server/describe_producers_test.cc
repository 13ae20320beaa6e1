// DescribeProducers (key 61) against the in-process broker: an idempotent
// producer's state shows on the partition it wrote to; unknown topics and
// partitions are UNKNOWN_TOPIC_OR_PARTITION, as Kafka answers.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/describe_producers_request.h"
#include "protocol/generated/describe_producers_response.h"
#include "protocol/generated/init_producer_id_request.h"
#include "protocol/generated/init_producer_id_response.h"

namespace samsa::server::test {
namespace {

using protocol::describe_producers_request;
using protocol::describe_producers_response;
using partition_response = describe_producers_response::topic_response::partition_response;

class describe_producers_test : public broker_test {
  protected:
    partition_response describe(const std::string& topic, int32_t partition) {
        describe_producers_request req;
        auto& t = req.topics.emplace_back();
        t.name = topic;
        t.partition_indexes = {partition};
        auto resp = broker().call<describe_producers_response>(req, 0);
        if (resp.topics.size() != 1 || resp.topics[0].partitions.size() != 1) {
            ADD_FAILURE() << "unexpected response shape";
            return {};
        }
        return resp.topics[0].partitions[0];
    }
};

TEST_F(describe_producers_test, idempotent_producer_is_listed) {
    const auto name = unique_name("dp-ok");
    broker().create_topic(name);
    protocol::init_producer_id_request init;
    init.transactional_id = std::nullopt;
    protocol::init_producer_id_response id;
    ASSERT_TRUE(broker_fixture::wait_until([&] {
        id = broker().call<protocol::init_producer_id_response>(init, 4);
        return id.error_code == 0;
    }));
    record::batch_options opts;
    opts.producer_id = id.producer_id.value();
    opts.producer_epoch = id.producer_epoch;
    opts.base_sequence = 0;
    bytes batch = make_batch(3, opts);
    protocol::produce_request req;
    req.acks = -1;
    req.timeout_ms = 30000;
    auto& t = req.topic_data.emplace_back();
    t.name = name;
    auto& p = t.partition_data.emplace_back();
    p.records = protocol::records::view(batch);
    auto produced = broker().call<protocol::produce_response>(req, 9);
    ASSERT_ERROR(produced.responses.at(0).partition_responses.at(0).error_code, error_code::none);

    auto r = describe(name, 0);
    EXPECT_ERROR(r.error_code, error_code::none);
    ASSERT_EQ(r.active_producers.size(), 1u);
    EXPECT_EQ(r.active_producers[0].producer_id, id.producer_id);
    EXPECT_EQ(r.active_producers[0].producer_epoch, id.producer_epoch);
    EXPECT_EQ(r.active_producers[0].last_sequence, 2);
    EXPECT_EQ(r.active_producers[0].current_txn_start_offset, -1);
}

TEST_F(describe_producers_test, partition_without_producers_is_empty) {
    const auto name = unique_name("dp-none");
    broker().create_topic(name);
    ASSERT_ERROR(broker().produce(name, 0, 1).error_code, error_code::none);
    auto r = describe(name, 0);
    EXPECT_ERROR(r.error_code, error_code::none);
    EXPECT_TRUE(r.active_producers.empty());
}

TEST_F(describe_producers_test, unknown_topic_is_unknown_topic_or_partition) {
    EXPECT_ERROR(describe(unique_name("dp-missing"), 0).error_code,
                 error_code::unknown_topic_or_partition);
}

TEST_F(describe_producers_test, partition_beyond_count_is_unknown_topic_or_partition) {
    const auto name = unique_name("dp-partition");
    broker().create_topic(name);
    EXPECT_ERROR(describe(name, 3).error_code, error_code::unknown_topic_or_partition);
}

}  // namespace
}  // namespace samsa::server::test
