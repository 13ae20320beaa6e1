#include "storage/checkpoint_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/uuid.h"
#include "storage/file_util.h"
#include "storage/partition_metadata.h"
#include "storage/temp_dir.h"
#include "storage/topic_partition.h"

namespace samsa::storage {
namespace {

using testing::temp_dir;

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

std::string read_text(const std::string& path) {
    return *read_whole_file(path);
}

TEST(checkpoint_file, writes_kafka_text_format) {
    temp_dir dir;
    auto path = dir.file("recovery-point-offset-checkpoint");
    offset_checkpoint offsets{{{"orders", 0}, 120}, {{"orders", 1}, 7}, {{"a.b-c_d", 12}, 0}};
    ASSERT_TRUE(write_offset_checkpoint(path, offsets));
    EXPECT_EQ(read_text(path), "0\n3\na.b-c_d 12 0\norders 0 120\norders 1 7\n");
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
    auto back = read_offset_checkpoint(path);
    ASSERT_TRUE(back) << back.err().message;
    EXPECT_EQ(*back, offsets);
}

TEST(checkpoint_file, reads_what_kafka_writes) {
    temp_dir dir;
    auto path = dir.file("replication-offset-checkpoint");
    write_text(path, "0\n2\n__consumer_offsets 13 4512\nmy-topic 0 99\n");
    auto c = read_offset_checkpoint(path);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->size(), 2u);
    EXPECT_EQ((c->at({"__consumer_offsets", 13})), 4512);
    EXPECT_EQ((c->at({"my-topic", 0})), 99);
}

TEST(checkpoint_file, missing_file_is_empty) {
    temp_dir dir;
    auto c = read_offset_checkpoint(dir.file("log-start-offset-checkpoint"));
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->empty());
}

TEST(checkpoint_file, empty_checkpoint_round_trips) {
    temp_dir dir;
    auto path = dir.file("x");
    ASSERT_TRUE(write_offset_checkpoint(path, {}));
    EXPECT_EQ(read_text(path), "0\n0\n");
    EXPECT_TRUE(read_offset_checkpoint(path)->empty());
}

struct corrupt_case {
    const char* text;
    const char* expect_in_message;
};

TEST(checkpoint_file, corrupt_files_are_reported_with_file_and_line) {
    temp_dir dir;
    auto path = dir.file("recovery-point-offset-checkpoint");
    const corrupt_case cases[] = {
        {"", "missing version"},
        {"0\n", "missing version or count"},
        {"1\n0\n", "unsupported version 1"},
        {"x\n0\n", "line 1"},
        {"0\n2\nt 0 5\n", "expected 2 entries, found 1"},
        {"0\n1\nt 0 5\nt 1 6\n", "expected 1 entries, found 2"},
        {"0\n1\nt 0\n", "line 3"},
        {"0\n1\nt zero 5\n", "line 3"},
        {"0\n1\nt 0 5x\n", "line 3"},
        {"0\n1\nbad/topic 0 5\n", "line 3"},
        {"0\n-1\n", "not a count"},
    };
    for (const auto& c : cases) {
        write_text(path, c.text);
        auto r = read_offset_checkpoint(path);
        ASSERT_FALSE(r) << c.text;
        EXPECT_EQ(r.err().code, error_code::kafka_storage_error);
        EXPECT_NE(r.err().message.find(c.expect_in_message), std::string::npos)
            << c.text << " -> " << r.err().message;
        EXPECT_NE(r.err().message.find(path), std::string::npos);
    }
}

TEST(checkpoint_file, overwrite_is_atomic_and_leaves_no_temp) {
    temp_dir dir;
    auto path = dir.file("c");
    ASSERT_TRUE(write_offset_checkpoint(path, {{{"t", 0}, 1}}));
    ASSERT_TRUE(write_offset_checkpoint(path, {{{"t", 0}, 2}}));
    EXPECT_EQ((read_offset_checkpoint(path)->at({"t", 0})), 2);
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(partition_metadata, round_trip_in_kafka_format) {
    temp_dir dir;
    auto path = dir.file("partition.metadata");
    EXPECT_FALSE(*read_partition_metadata(path));
    uuid id = uuid::random();
    ASSERT_TRUE(write_partition_metadata(path, id));
    EXPECT_EQ(read_text(path), "version: 0\ntopic_id: " + id.to_string() + "\n");
    auto back = read_partition_metadata(path);
    ASSERT_TRUE(back && *back);
    EXPECT_EQ(**back, id);
}

TEST(partition_metadata, malformed_files_are_errors) {
    temp_dir dir;
    auto path = dir.file("partition.metadata");
    for (const char* text :
         {"", "version: 1\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA\n",
          "version: 0\ntopicid: AAAAAAAAAAAAAAAAAAAAAA\n", "version: 0\ntopic_id: short\n"}) {
        write_text(path, text);
        auto r = read_partition_metadata(path);
        ASSERT_FALSE(r) << text;
        EXPECT_EQ(r.err().code, error_code::kafka_storage_error);
    }
}

TEST(topic_partition, directory_names_as_kafka) {
    topic_partition tp{"my-topic", 3};
    EXPECT_EQ(tp.to_string(), "my-topic-3");
    EXPECT_EQ(parse_partition_dir_name("my-topic-3"), tp);
    EXPECT_EQ(parse_partition_dir_name("__consumer_offsets-49"),
              (topic_partition{"__consumer_offsets", 49}));
    EXPECT_FALSE(parse_partition_dir_name("my-topic"));
    EXPECT_FALSE(parse_partition_dir_name("my-topic-"));
    EXPECT_FALSE(parse_partition_dir_name("-3"));
    EXPECT_FALSE(parse_partition_dir_name("my-topic-03"));
    EXPECT_FALSE(parse_partition_dir_name("my-topic-3.0123456789abcdef0123456789abcdef-delete"));
    EXPECT_FALSE(parse_partition_dir_name("my-topic-3.0123456789abcdef0123456789abcdef-future"));
    EXPECT_FALSE(parse_partition_dir_name("recovery-point-offset-checkpoint"));
    auto id = random_unique_id();
    EXPECT_EQ(id.size(), 32u);
    EXPECT_EQ(delete_dir_name(tp, id), "my-topic-3." + id + "-delete");
    std::string long_topic(249, 'x');
    auto name = delete_dir_name({long_topic, 12}, id);
    EXPECT_EQ(name.size(), 255u);
    EXPECT_TRUE(name.ends_with("-12." + id + "-delete"));
}

}  // namespace
}  // namespace samsa::storage
