#include "metadata/metadata_log.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "metadata_test_util.h"

namespace samsa::metadata {
namespace {

using testing::partition_rec;
using testing::temp_dir;
using testing::test_uuid;
using testing::topic_rec;

struct replayed_batch {
    int64_t last_offset;
    std::vector<metadata_record> records;
};

std::vector<replayed_batch> replay_all(const metadata_log& log) {
    std::vector<replayed_batch> out;
    auto s = log.replay([&](int64_t last, std::vector<metadata_record> records) -> status {
        out.push_back({last, std::move(records)});
        return {};
    });
    EXPECT_TRUE(s) << s.err().message;
    return out;
}

TEST(metadata_log, a_batch_is_replayed_whole_after_reopen) {
    temp_dir dir;
    auto id = test_uuid(1);
    {
        auto log = metadata_log::open(dir.path(), 0);
        ASSERT_TRUE(log) << log.err().message;
        EXPECT_EQ((*log)->end_offset(), 0);
        auto last = (*log)->append(
            {topic_rec("t", id), partition_rec(id, 0, {1}), partition_rec(id, 1, {1})});
        ASSERT_TRUE(last) << last.err().message;
        EXPECT_EQ(*last, 2);
        auto second = (*log)->append({protocol::no_op_record{}});
        ASSERT_TRUE(second);
        EXPECT_EQ(*second, 3);
        EXPECT_EQ((*log)->end_offset(), 4);
        ASSERT_TRUE((*log)->close());
    }
    EXPECT_TRUE(std::filesystem::exists(dir.path() + "/__cluster_metadata-0"));
    auto log = metadata_log::open(dir.path(), 0);
    ASSERT_TRUE(log) << log.err().message;
    EXPECT_EQ((*log)->end_offset(), 4);
    auto batches = replay_all(**log);
    ASSERT_EQ(batches.size(), 2u);
    EXPECT_EQ(batches[0].last_offset, 2);
    ASSERT_EQ(batches[0].records.size(), 3u);
    EXPECT_EQ(std::get<protocol::topic_record>(batches[0].records[0]), topic_rec("t", id));
    EXPECT_EQ(batches[1].last_offset, 3);

    auto img = replay_image(**log, std::make_shared<metadata_image>());
    ASSERT_TRUE(img) << img.err().message;
    EXPECT_EQ((*img)->offset, 3);
    EXPECT_EQ((*img)->topic("t")->partitions.size(), 2u);
}

TEST(metadata_log, a_torn_last_batch_is_cut_and_the_rest_replays) {
    temp_dir dir;
    auto id = test_uuid(1);
    {
        auto log = metadata_log::open(dir.path(), 0);
        ASSERT_TRUE(log);
        ASSERT_TRUE((*log)->append({topic_rec("t", id), partition_rec(id, 0, {1})}));
        ASSERT_TRUE((*log)->append({partition_rec(id, 1, {1})}));
        ASSERT_TRUE((*log)->close());
    }
    auto segment = dir.path() + "/__cluster_metadata-0/00000000000000000000.log";
    auto size = std::filesystem::file_size(segment);
    std::filesystem::resize_file(segment, size - 5);
    auto log = metadata_log::open(dir.path(), 0);
    ASSERT_TRUE(log) << log.err().message;
    EXPECT_EQ((*log)->end_offset(), 2);
    auto img = replay_image(**log, std::make_shared<metadata_image>());
    ASSERT_TRUE(img);
    EXPECT_EQ((*img)->topic("t")->partitions.size(), 1u);
    // Appends continue after the cut.
    auto next = (*log)->append({partition_rec(id, 1, {1})});
    ASSERT_TRUE(next);
    EXPECT_EQ(*next, 2);
}

TEST(metadata_log, replay_refuses_a_batch_that_does_not_apply) {
    temp_dir dir;
    auto log = metadata_log::open(dir.path(), 0);
    ASSERT_TRUE(log);
    // A partition of a topic that was never created.
    ASSERT_TRUE((*log)->append({partition_rec(test_uuid(3), 0, {1})}));
    auto img = replay_image(**log, std::make_shared<metadata_image>());
    ASSERT_FALSE(img);
    EXPECT_NE(img.err().message.find("offset 0"), std::string::npos) << img.err().message;
}

}  // namespace
}  // namespace samsa::metadata
