// The generated responses' for_each_error_code: every ErrorCode field the
// response has in the given version, nested ones included, as Kafka's
// errorCounts() gives them to RequestMetrics' ErrorsPerSec.
#include <gtest/gtest.h>

#include <map>

#include "protocol/generated/add_partitions_to_txn_response.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/fetch_response.h"

namespace samsa::protocol {
namespace {

template <typename Response>
std::map<int16_t, int> counts(const Response& r, int16_t version) {
    std::map<int16_t, int> out;
    r.for_each_error_code(version, [&out](int16_t code) { ++out[code]; });
    return out;
}

TEST(error_counts, each_topic_result_counts_once_and_config_errors_do_not) {
    create_topics_response r;
    r.topics.resize(3);
    r.topics[1].error_code = 36;  // TOPIC_ALREADY_EXISTS
    r.topics[2].topic_config_error_code = 29;
    EXPECT_EQ(counts(r, 7), (std::map<int16_t, int>{{0, 2}, {36, 1}}));
}

TEST(error_counts, a_field_counts_only_in_the_versions_that_have_it) {
    fetch_response r;
    r.error_code = 0;  // top level from v7 on
    auto& t = r.responses.emplace_back();
    t.partitions.resize(2);
    t.partitions[0].error_code = 1;  // OFFSET_OUT_OF_RANGE
    EXPECT_EQ(counts(r, 4), (std::map<int16_t, int>{{0, 1}, {1, 1}}));
    EXPECT_EQ(counts(r, 12), (std::map<int16_t, int>{{0, 2}, {1, 1}}));
}

TEST(error_counts, partition_error_codes_of_add_partitions_to_txn_count) {
    add_partitions_to_txn_response r;
    auto& t = r.results_by_topic_v3_and_below.emplace_back();
    t.results_by_partition.resize(2);
    t.results_by_partition[1].partition_error_code = 48;
    EXPECT_EQ(counts(r, 3), (std::map<int16_t, int>{{0, 1}, {48, 1}}));
}

}  // namespace
}  // namespace samsa::protocol
