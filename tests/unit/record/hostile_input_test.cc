// Mutated and truncated inputs through every decoder of the room: each must
// return a value (accept or an error code), never crash or read out of bounds.
// Run under ASan/UBSan to make the "never" meaningful.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "batch_test_util.h"
#include "record/batch_validator.h"
#include "record/legacy_message_set.h"

namespace samsa::record {
namespace {

constexpr int64_t now = 1'700'000'000'000;

// SAMSA_HOSTILE_ROUNDS=<n> multiplies the rounds for a longer soak.
int rounds(int base) {
    const char* env = std::getenv("SAMSA_HOSTILE_ROUNDS");
    int factor = env ? std::atoi(env) : 1;
    return base * (factor > 0 ? factor : 1);
}

void mutate(bytes& b, std::mt19937& rng) {
    switch (rng() % 4) {
        case 0:  // flip a few bytes
            for (int i = 0, n = 1 + int(rng() % 4); i < n && !b.empty(); ++i) {
                b[rng() % b.size()] = uint8_t(rng());
            }
            break;
        case 1:  // truncate
            b.resize(rng() % (b.size() + 1));
            break;
        case 2:  // write a hostile 32-bit value somewhere
            if (b.size() >= 4) {
                static const uint32_t values[] = {0,  1,  0x7fffffff, 0x80000000, 0xffffffff,
                                                  13, 48, 49,         61};
                store_be32(b.data() + rng() % (b.size() - 3), values[rng() % 9]);
            }
            break;
        default:  // overwrite a varint-ish byte run with continuation bits
            for (size_t i = rng() % (b.size() + 1), n = 0; i < b.size() && n < 6; ++i, ++n) {
                b[i] = 0xff;
            }
            break;
    }
}

TEST(hostile_input, validator_and_iterators_survive_mutated_batches) {
    std::mt19937 rng(2024);
    validation_options o;
    o.now_ms = now;
    o.compacted = true;
    o.max_uncompressed_bytes = 1 << 20;
    for (int codec = 0; codec <= 4; ++codec) {
        batch_options bo;
        bo.codec = compression(codec);
        const bytes good = test::make_batch(30, bo, now);
        for (int round = 0; round < rounds(400); ++round) {
            bytes b = good;
            mutate(b, rng);
            // With a fixed-up CRC the mutation reaches the records.
            if (b.size() >= batch_header_size && rng() % 2) {
                test::fix_crc(b);
            }
            for (auto origin :
                 {append_origin::client, append_origin::coordinator, append_origin::replication}) {
                o.origin = origin;
                (void)validate_batch(b, o);
            }
            (void)validate_produce_records(b, 9);
            (void)validate_produce_records(b, 2);
            (void)check_batch_integrity(b);
            batch_iterator it(b, {.max_batch_size = 1 << 20, .verify_crc = true});
            while (it.next()) {
            }
            if (b.size() >= batch_header_size) {
                (void)set_log_append_time(b, now);
                (void)recompress_batch(b, compression::lz4, std::nullopt, 1 << 20);
            }
        }
    }
}

TEST(hostile_input, legacy_parser_survives_mutated_message_sets) {
    std::mt19937 rng(7);
    validation_options o;
    o.now_ms = now;
    o.max_uncompressed_bytes = 1 << 20;
    for (int codec = 0; codec <= 3; ++codec) {
        for (int8_t magic : {int8_t(0), int8_t(1)}) {
            bytes inner;
            for (int i = 0; i < 10; ++i) {
                encode_legacy_message(inner, magic, i, 0, now, as_bytes_view("key"),
                                      as_bytes_view("value"));
            }
            for (int round = 0; round < rounds(300); ++round) {
                bytes in = inner;
                bytes set;
                if (codec == 0) {
                    mutate(in, rng);
                    set = in;
                } else {
                    // Mutate either the inner set before compressing or the wrapper after.
                    if (rng() % 2) {
                        mutate(in, rng);
                    }
                    bytes c = std::move(compress(compression(codec), in)).value();
                    encode_legacy_message(set, magic, 9, int8_t(codec), now, std::nullopt,
                                          bytes_view(c));
                    if (rng() % 2) {
                        mutate(set, rng);
                    }
                }
                auto parsed = legacy_message_set::parse(set, o);
                if (parsed) {
                    (void)convert_to_v2(*parsed, compression::none, timestamp_type::create_time,
                                        now);
                }
            }
        }
    }
}

TEST(hostile_input, decompressors_survive_mutated_frames) {
    std::mt19937 rng(99);
    bytes text;
    for (int i = 0; i < 5000; ++i) {
        text.push_back(uint8_t('a' + i % 7));
    }
    for (int codec = 1; codec <= 4; ++codec) {
        const bytes good = std::move(compress(compression(codec), text)).value();
        for (int round = 0; round < rounds(500); ++round) {
            bytes b = good;
            mutate(b, rng);
            auto d = decompress(compression(codec), b, 1 << 16);
            if (!d) {
                EXPECT_EQ(d.code(), error_code::corrupt_message);
            } else {
                EXPECT_LE(d->size(), size_t(1) << 16);
            }
        }
    }
}

}  // namespace
}  // namespace samsa::record
