// OffsetCommit (key 8) against the in-process broker: standalone and member
// commits, and the per-partition errors Kafka answers for unknown topics,
// unknown members, stale generations, oversized metadata and empty group ids.
#include <gtest/gtest.h>

#include "group_support.h"

namespace samsa::server::test {
namespace {

class offset_commit_test : public group_test {
  protected:
    void SetUp() override {
        group_test::SetUp();
        if (!HasFatalFailure()) {
            _topic = unique_name("oc-topic");
            broker().create_topic(_topic, 2);
        }
    }
    std::string _topic;
};

TEST_F(offset_commit_test, standalone_commit_is_none) {
    EXPECT_ERROR(commit(broker(), unique_name("oc-standalone"), _topic, 0, 5), error_code::none);
}

TEST_F(offset_commit_test, member_commit_is_none) {
    const auto group = unique_name("oc-member");
    auto m = join_stable(broker(), group);
    EXPECT_ERROR(commit(broker(), group, _topic, 1, 7, m), error_code::none);
}

TEST_F(offset_commit_test, unknown_topic_is_unknown_topic_or_partition) {
    EXPECT_ERROR(commit(broker(), unique_name("oc-missing"), unique_name("oc-no-topic"), 0, 1),
                 error_code::unknown_topic_or_partition);
}

TEST_F(offset_commit_test, partition_beyond_count_is_unknown_topic_or_partition) {
    EXPECT_ERROR(commit(broker(), unique_name("oc-partition"), _topic, 9, 1),
                 error_code::unknown_topic_or_partition);
}

TEST_F(offset_commit_test, unknown_member_is_unknown_member_id) {
    const auto group = unique_name("oc-unknown");
    auto m = join_stable(broker(), group);
    EXPECT_ERROR(commit(broker(), group, _topic, 0, 1, {"not-a-member", m.generation}),
                 error_code::unknown_member_id);
}

TEST_F(offset_commit_test, stale_generation_is_illegal_generation) {
    const auto group = unique_name("oc-generation");
    auto m = join_stable(broker(), group);
    EXPECT_ERROR(commit(broker(), group, _topic, 0, 1, {m.member_id, m.generation + 1}),
                 error_code::illegal_generation);
}

TEST_F(offset_commit_test, standalone_commit_to_group_with_members_is_refused) {
    const auto group = unique_name("oc-standalone-busy");
    join_stable(broker(), group);
    // Generation -1 and no member id: Kafka takes it for a member it does not know.
    EXPECT_ERROR(commit(broker(), group, _topic, 0, 1), error_code::unknown_member_id);
}

TEST_F(offset_commit_test, oversized_metadata_is_offset_metadata_too_large) {
    // offset.metadata.max.bytes is 4096.
    EXPECT_ERROR(
        commit(broker(), unique_name("oc-metadata"), _topic, 0, 1, {}, std::string(5000, 'm')),
        error_code::offset_metadata_too_large);
}

// Kafka keeps accepting commits for the empty group id (backwards
// compatibility; GroupCoordinatorService.commitOffsets).
TEST_F(offset_commit_test, empty_group_id_is_accepted) {
    EXPECT_ERROR(commit(broker(), "", _topic, 0, 1), error_code::none);
}

}  // namespace
}  // namespace samsa::server::test
