// file_batch_reader's checks of a batch larger than its 64 KiB read chunk, as
// recovery meets them (1 MiB batches are common): a byte flipped anywhere in
// it is a CRC mismatch, a file that ends inside it is a torn tail, and its
// whole bytes are there when asked for.
#include <fcntl.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "record/batch_builder.h"
#include "storage/file_batch_reader.h"
#include "storage/file_util.h"
#include "temp_dir.h"

namespace samsa::storage {
namespace {

bytes batch_of(int records, size_t value_size, int64_t base_offset) {
    record::batch_options options;
    options.base_offset = base_offset;
    record::batch_builder b(options);
    const std::string value(value_size, 'v');
    for (int i = 0; i < records; ++i) {
        b.add(1000 + i, std::nullopt,
              bytes_view(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
    }
    auto built = b.build();
    EXPECT_TRUE(built);
    return *built;
}

class file_batch_reader_test : public ::testing::Test {
  protected:
    void SetUp() override {
        for (const bytes& b : {batch_of(3, 100, 0), batch_of(300, 1024, 3), batch_of(2, 10, 303)}) {
            positions.push_back(int64_t(log.size()));
            log.insert(log.end(), b.begin(), b.end());
        }
        ASSERT_GT(positions[2] - positions[1], 256 * 1024);
    }

    file_handle write(const bytes& content) {
        auto f =
            file_handle::open(dir.file("00000000000000000000.log"), O_RDWR | O_CREAT | O_TRUNC);
        EXPECT_TRUE(f);
        EXPECT_TRUE(f->pwrite_all(content.data(), content.size(), 0));
        return std::move(*f);
    }

    // The positions of the batches read, and how the scan stopped.
    std::pair<std::vector<int64_t>, scan_stop> scan(const file_handle& f, int64_t end,
                                                    file_batch_reader_options o) {
        file_batch_reader reader(f, 0, end, o);
        std::vector<int64_t> seen;
        for (;;) {
            auto b = reader.next();
            EXPECT_TRUE(b);
            if (!b || !*b) {
                break;
            }
            seen.push_back((*b)->position);
            if (o.load_bytes) {
                EXPECT_EQ(reader.batch_bytes().size(), size_t((*b)->size()));
            }
        }
        last_reason = reader.stop_reason();
        last_valid_end = reader.valid_end();
        return {seen, reader.stop()};
    }

    testing::temp_dir dir;
    bytes log;
    std::vector<int64_t> positions;
    std::string last_reason;
    int64_t last_valid_end = -1;
};

TEST_F(file_batch_reader_test, a_large_batch_is_read_and_checked_whole) {
    auto f = write(log);
    auto [seen, stop] = scan(f, int64_t(log.size()), {.verify_crc = true});
    EXPECT_EQ(seen, positions);
    EXPECT_EQ(stop, scan_stop::end);
    // With its bytes asked for too, the same.
    auto [whole, stop2] = scan(f, int64_t(log.size()), {.verify_crc = true, .load_bytes = true});
    EXPECT_EQ(whole, positions);
    EXPECT_EQ(stop2, scan_stop::end);
}

TEST_F(file_batch_reader_test, a_byte_flipped_anywhere_in_it_is_a_crc_mismatch) {
    for (int64_t into : {int64_t(30), int64_t(128 * 1024 + 5), positions[2] - positions[1] - 1}) {
        bytes damaged = log;
        damaged[size_t(positions[1] + into)] ^= 0x40;
        auto f = write(damaged);
        auto [seen, stop] = scan(f, int64_t(damaged.size()), {.verify_crc = true});
        EXPECT_EQ(seen, std::vector<int64_t>{positions[0]}) << into;
        EXPECT_EQ(stop, scan_stop::corrupt) << into;
        EXPECT_EQ(last_reason, "CRC mismatch at position " + std::to_string(positions[1]));
        EXPECT_EQ(last_valid_end, positions[1]);
    }
}

TEST_F(file_batch_reader_test, a_file_ending_inside_a_large_batch_is_a_torn_tail) {
    // The region says the batch is all there; the file ends 200 KiB into it.
    bytes torn(log.begin(), log.begin() + positions[1] + 200 * 1024);
    auto f = write(torn);
    auto [seen, stop] = scan(f, int64_t(log.size()), {.verify_crc = true});
    EXPECT_EQ(seen, std::vector<int64_t>{positions[0]});
    EXPECT_EQ(stop, scan_stop::truncated);
    EXPECT_EQ(last_reason,
              "file shorter than expected at position " + std::to_string(positions[1]));
    EXPECT_EQ(last_valid_end, positions[1]);
}

}  // namespace
}  // namespace samsa::storage
