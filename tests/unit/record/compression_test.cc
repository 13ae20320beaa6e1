#include "record/compression.h"

#include <gtest/gtest.h>
#include <lz4frame.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <random>
#include <string>

namespace samsa::record {
namespace {

const compression all_codecs[] = {compression::none, compression::gzip, compression::snappy,
                                  compression::lz4, compression::zstd};

bytes random_bytes(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    bytes b(n);
    for (auto& c : b) {
        c = uint8_t(rng());
    }
    return b;
}

bytes text_bytes(size_t n) {
    std::string s;
    while (s.size() < n) {
        s += "the quick brown fox jumps over the lazy dog " + std::to_string(s.size() % 97);
    }
    s.resize(n);
    return bytes(s.begin(), s.end());
}

bytes concat(bytes a, const bytes& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

class codec_test : public ::testing::TestWithParam<compression> {};

TEST_P(codec_test, round_trips_payloads_of_many_shapes) {
    for (const bytes& in :
         {bytes{}, bytes{'x'}, text_bytes(100), text_bytes(1 << 20), random_bytes(200000, 1)}) {
        auto c = compress(GetParam(), in);
        ASSERT_TRUE(c) << c.err().message;
        auto d = decompress(GetParam(), *c, in.size());
        ASSERT_TRUE(d) << compression_name(GetParam()) << ": " << d.err().message;
        EXPECT_EQ(*d, in);
    }
}

TEST_P(codec_test, bounds_output_of_a_zip_bomb) {
    bytes zeros(64 << 20, 0);
    auto c = compress(GetParam(), zeros);
    ASSERT_TRUE(c);
    auto d = decompress(GetParam(), *c, 1 << 20);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.code(), error_code::corrupt_message);
}

TEST_P(codec_test, accepts_output_of_exactly_the_limit_and_not_one_byte_more) {
    bytes in = text_bytes(100000);
    auto c = compress(GetParam(), in);
    ASSERT_TRUE(c);
    EXPECT_TRUE(decompress(GetParam(), *c, in.size()));
    auto d = decompress(GetParam(), *c, in.size() - 1);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.code(), error_code::corrupt_message);
}

// The codecs that actually compress (every one but none).
class compressing_codec_test : public ::testing::TestWithParam<compression> {};

TEST_P(compressing_codec_test, rejects_truncated_input) {
    bytes in = random_bytes(50000, 2);
    auto c = compress(GetParam(), in);
    ASSERT_TRUE(c);
    for (size_t cut : {size_t(1), size_t(5), c->size() / 2, c->size() - 1}) {
        bytes t(c->begin(), c->begin() + ptrdiff_t(c->size() - cut));
        auto d = decompress(GetParam(), t, 1 << 20);
        EXPECT_FALSE(d) << compression_name(GetParam()) << " cut " << cut;
        if (!d) {
            EXPECT_EQ(d.code(), error_code::corrupt_message);
        }
    }
}

TEST_P(compressing_codec_test, rejects_garbage_without_crashing) {
    for (uint32_t seed = 0; seed < 200; ++seed) {
        bytes g = random_bytes(seed % 64 + 1, seed);
        auto d = decompress(GetParam(), g, 1 << 16);
        if (!d) {
            EXPECT_EQ(d.code(), error_code::corrupt_message);
        }
    }
}

std::string codec_name(const ::testing::TestParamInfo<compression>& info) {
    return std::string(compression_name(info.param));
}
INSTANTIATE_TEST_SUITE_P(all, codec_test, ::testing::ValuesIn(all_codecs), codec_name);
INSTANTIATE_TEST_SUITE_P(all, compressing_codec_test,
                         ::testing::Values(compression::gzip, compression::snappy, compression::lz4,
                                           compression::zstd),
                         codec_name);

TEST(compression, rejects_codec_ids_five_to_seven) {
    for (int id = 5; id <= 7; ++id) {
        auto c = compression_from_id(id);
        ASSERT_FALSE(c);
        EXPECT_EQ(c.code(), error_code::unsupported_compression_type);
        auto d = decompress(compression(id), bytes{1, 2, 3});
        EXPECT_EQ(d.code(), error_code::unsupported_compression_type);
        auto e = compress(compression(id), bytes{1, 2, 3});
        EXPECT_EQ(e.code(), error_code::unsupported_compression_type);
    }
    for (int id = 0; id <= 4; ++id) {
        EXPECT_TRUE(compression_from_id(id));
    }
}

TEST(compression, names_match_kafka) {
    EXPECT_EQ(compression_from_name("zstd"), compression::zstd);
    EXPECT_EQ(compression_from_name("none"), compression::none);
    EXPECT_EQ(compression_from_name("brotli"), std::nullopt);
    EXPECT_EQ(compression_name(compression::lz4), "lz4");
}

// ---- snappy framings ------------------------------------------------------

const bytes xerial_header = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0x00, 0, 0, 0, 1, 0, 0, 0, 1};
// Raw snappy of "hello": varint length 5, then a literal tag ((5 - 1) << 2).
const bytes raw_snappy_hello = {0x05, 0x10, 'h', 'e', 'l', 'l', 'o'};

bytes xerial_block(const bytes& raw) {
    bytes b(4);
    store_be32(b.data(), uint32_t(raw.size()));
    return concat(b, raw);
}

TEST(snappy, decodes_hand_built_xerial_frame) {
    bytes framed = concat(xerial_header, xerial_block(raw_snappy_hello));
    auto d = decompress(compression::snappy, framed);
    ASSERT_TRUE(d) << d.err().message;
    EXPECT_EQ(as_string_view(*d), "hello");
}

TEST(snappy, decodes_hand_built_raw_snappy) {
    auto d = decompress(compression::snappy, raw_snappy_hello);
    ASSERT_TRUE(d);
    EXPECT_EQ(as_string_view(*d), "hello");
}

TEST(snappy, decodes_xerial_frame_of_several_blocks) {
    bytes framed = concat(xerial_header, xerial_block(raw_snappy_hello));
    framed = concat(framed, xerial_block(raw_snappy_hello));
    auto d = decompress(compression::snappy, framed);
    ASSERT_TRUE(d) << d.err().message;
    EXPECT_EQ(as_string_view(*d), "hellohello");
}

// librdkafka reads one header and then blocks only: a second header would
// stop its consumers at this batch.
TEST(snappy, rejects_concatenated_xerial_streams) {
    bytes framed = concat(xerial_header, xerial_block(raw_snappy_hello));
    framed = concat(framed, concat(xerial_header, xerial_block(raw_snappy_hello)));
    EXPECT_EQ(decompress(compression::snappy, framed).code(), error_code::corrupt_message);
}

TEST(snappy, rejects_bytes_after_the_last_xerial_block) {
    bytes framed = concat(xerial_header, xerial_block(raw_snappy_hello));
    EXPECT_EQ(decompress(compression::snappy, concat(framed, {0x00, 0x01})).code(),
              error_code::corrupt_message);
}

TEST(snappy, rejects_bytes_after_raw_snappy) {
    EXPECT_EQ(decompress(compression::snappy, concat(raw_snappy_hello, {'x'})).code(),
              error_code::corrupt_message);
}

TEST(snappy, writes_xerial_framing_like_the_java_client) {
    bytes in = text_bytes(100000);
    bytes framed = snappy_compress_xerial(in);
    ASSERT_GE(framed.size(), 16u);
    EXPECT_TRUE(std::equal(xerial_header.begin(), xerial_header.end(), framed.begin()));
    EXPECT_TRUE(is_xerial_snappy(framed));
    // 100000 bytes in 32 KiB blocks: four blocks, each a length and raw snappy.
    size_t pos = 16, blocks = 0;
    while (pos < framed.size()) {
        uint32_t len = load_be32(framed.data() + pos);
        pos += 4 + len;
        ++blocks;
    }
    EXPECT_EQ(pos, framed.size());
    EXPECT_EQ(blocks, 4u);
    auto c = compress(compression::snappy, in);
    ASSERT_TRUE(c);
    EXPECT_TRUE(is_xerial_snappy(*c));
}

TEST(snappy, decodes_raw_snappy_written_by_other_clients) {
    bytes in = text_bytes(70000);
    bytes raw = snappy_compress_raw(in);
    EXPECT_FALSE(is_xerial_snappy(raw));
    auto d = decompress(compression::snappy, raw);
    ASSERT_TRUE(d);
    EXPECT_EQ(*d, in);
}

TEST(snappy, decodes_empty_xerial_stream) {
    auto d = decompress(compression::snappy, xerial_header);
    ASSERT_TRUE(d);
    EXPECT_TRUE(d->empty());
}

TEST(snappy, rejects_xerial_block_with_negative_length) {
    bytes framed = concat(xerial_header, {0xff, 0xff, 0xff, 0xfe, 0x05, 0x10});
    EXPECT_EQ(decompress(compression::snappy, framed).code(), error_code::corrupt_message);
}

TEST(snappy, rejects_xerial_block_longer_than_input) {
    bytes framed = concat(xerial_header, {0x00, 0x00, 0x10, 0x00, 0x05, 0x10, 'h'});
    EXPECT_EQ(decompress(compression::snappy, framed).code(), error_code::corrupt_message);
}

TEST(snappy, rejects_truncated_xerial_header) {
    bytes h(xerial_header.begin(), xerial_header.begin() + 10);
    EXPECT_EQ(decompress(compression::snappy, h).code(), error_code::corrupt_message);
}

TEST(snappy, rejects_raw_snappy_claiming_a_huge_length_before_allocating) {
    // varint 0x7fffffff, then one literal byte.
    bytes bomb = {0xff, 0xff, 0xff, 0xff, 0x07, 0x00, 'a'};
    auto d = decompress(compression::snappy, bomb, size_t(1) << 40);
    EXPECT_EQ(d.code(), error_code::corrupt_message);
}

// ---- gzip -------------------------------------------------------------------

TEST(gzip, writes_a_gzip_wrapper) {
    auto c = compress(compression::gzip, text_bytes(1000));
    ASSERT_TRUE(c);
    ASSERT_GE(c->size(), 18u);
    EXPECT_EQ((*c)[0], 0x1f);
    EXPECT_EQ((*c)[1], 0x8b);
}

// librdkafka inflates the first member only: the records of a second one
// would be lost to its consumers.
TEST(gzip, rejects_a_second_member) {
    auto a = compress(compression::gzip, as_bytes_view("abc"));
    auto b = compress(compression::gzip, as_bytes_view("def"));
    ASSERT_TRUE(a && b);
    auto d = decompress(compression::gzip, concat(*a, *b));
    EXPECT_EQ(d.code(), error_code::corrupt_message);
    EXPECT_NE(d.err().message.find("second gzip member"), std::string::npos) << d.err().message;
}

TEST(gzip, rejects_bytes_after_the_member) {
    auto a = compress(compression::gzip, as_bytes_view("abc"));
    ASSERT_TRUE(a);
    EXPECT_EQ(decompress(compression::gzip, concat(*a, {0x00, 0x01, 0x02})).code(),
              error_code::corrupt_message);
    auto d = decompress(compression::gzip, *a);
    ASSERT_TRUE(d) << d.err().message;
    EXPECT_EQ(as_string_view(*d), "abc");
}

TEST(gzip, rejects_corrupted_deflate_stream) {
    auto c = compress(compression::gzip, random_bytes(10000, 3));
    ASSERT_TRUE(c);
    for (size_t i = 10; i < 40; ++i) {
        (*c)[i] ^= 0x5a;
    }
    EXPECT_EQ(decompress(compression::gzip, *c).code(), error_code::corrupt_message);
}

TEST(gzip, rejects_invalid_level_as_a_config_error) {
    EXPECT_EQ(compress(compression::gzip, as_bytes_view("x"), 42).code(),
              error_code::invalid_config);
}

// ---- lz4 --------------------------------------------------------------------

TEST(lz4, writes_frames_the_java_client_can_read) {
    auto c = compress(compression::lz4, text_bytes(200000));
    ASSERT_TRUE(c);
    ASSERT_GE(c->size(), 7u);
    EXPECT_EQ(load_be32(c->data()), 0x04224d18u);  // magic 0x184D2204, little endian
    // FLG: version 01, independent blocks; no block/content checksum, content size
    // or dictionary id (Kafka's reader rejects reserved bits). BD: 64 KiB blocks.
    EXPECT_EQ((*c)[4], 0x60);
    EXPECT_EQ((*c)[5], 0x40);
    EXPECT_EQ((*c)[6], uint8_t(xxh32(bytes_view(c->data() + 4, 2)) >> 8));
}

TEST(lz4, decodes_frames_with_content_size_and_checksums) {
    bytes in = text_bytes(300000);
    LZ4F_preferences_t prefs;
    std::memset(&prefs, 0, sizeof(prefs));
    prefs.frameInfo.contentSize = in.size();
    prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
    prefs.frameInfo.blockChecksumFlag = LZ4F_blockChecksumEnabled;
    prefs.frameInfo.blockMode = LZ4F_blockIndependent;
    bytes out(LZ4F_compressFrameBound(in.size(), &prefs));
    out.resize(LZ4F_compressFrame(out.data(), out.size(), in.data(), in.size(), &prefs));
    auto d = decompress(compression::lz4, out);
    ASSERT_TRUE(d) << d.err().message;
    EXPECT_EQ(*d, in);
}

TEST(lz4, rejects_wrong_header_checksum_except_for_magic_zero_messages) {
    bytes in = text_bytes(5000);
    auto c = compress(compression::lz4, in);
    ASSERT_TRUE(c);
    // Kafka's 0.8/0.9 LZ4 writer hashed the magic bytes too (KAFKA-3160).
    (*c)[6] = uint8_t(xxh32(bytes_view(c->data(), 6)) >> 8);
    ASSERT_NE((*c)[6], uint8_t(xxh32(bytes_view(c->data() + 4, 2)) >> 8));
    EXPECT_EQ(decompress(compression::lz4, *c).code(), error_code::corrupt_message);
    auto d = decompress_lz4_ignoring_header_checksum(*c, in.size());
    ASSERT_TRUE(d) << d.err().message;
    EXPECT_EQ(*d, in);
}

bytes lz4_frame_with(const bytes& in, LZ4F_blockMode_t mode, unsigned dict_id) {
    LZ4F_preferences_t prefs;
    std::memset(&prefs, 0, sizeof(prefs));
    prefs.frameInfo.blockMode = mode;  // kept only when the input spans several blocks
    prefs.frameInfo.blockSizeID = LZ4F_max64KB;
    prefs.frameInfo.dictID = dict_id;
    bytes out(LZ4F_compressFrameBound(in.size(), &prefs));
    out.resize(LZ4F_compressFrame(out.data(), out.size(), in.data(), in.size(), &prefs));
    return out;
}

// A batch the broker accepts must be one every consumer can read: librdkafka
// fails a batch with bytes after the frame, and Java's reader ignores a second
// frame, so either would be a poison pill at its offset.
TEST(lz4, rejects_bytes_after_the_frame) {
    auto a = compress(compression::lz4, as_bytes_view("abc"));
    ASSERT_TRUE(a);
    auto d = decompress(compression::lz4, concat(*a, {0xde, 0xad}));
    EXPECT_EQ(d.code(), error_code::corrupt_message);
    EXPECT_NE(d.err().message.find("2 bytes after the lz4 frame"), std::string::npos)
        << d.err().message;
}

TEST(lz4, rejects_concatenated_frames) {
    auto a = compress(compression::lz4, as_bytes_view("abc"));
    auto b = compress(compression::lz4, as_bytes_view("def"));
    ASSERT_TRUE(a && b);
    EXPECT_EQ(decompress(compression::lz4, concat(*a, *b)).code(), error_code::corrupt_message);
}

TEST(lz4, rejects_what_the_java_reader_refuses) {
    bytes in = text_bytes(200000);
    EXPECT_EQ(decompress(compression::lz4, lz4_frame_with(in, LZ4F_blockLinked, 0)).code(),
              error_code::corrupt_message);
    EXPECT_EQ(decompress(compression::lz4, lz4_frame_with(in, LZ4F_blockIndependent, 7)).code(),
              error_code::corrupt_message);
    auto ok = decompress(compression::lz4, lz4_frame_with(in, LZ4F_blockIndependent, 0));
    ASSERT_TRUE(ok) << ok.err().message;
    EXPECT_EQ(*ok, in);
}

TEST(lz4, rejects_a_skippable_frame_after_the_frame) {
    auto a = compress(compression::lz4, as_bytes_view("abc"));
    ASSERT_TRUE(a);
    bytes skippable = {0x50, 0x2a, 0x4d, 0x18, 0x01, 0x00, 0x00, 0x00, 0x00};
    EXPECT_EQ(decompress(compression::lz4, concat(*a, skippable)).code(),
              error_code::corrupt_message);
}

TEST(xxh32, matches_reference_vectors) {
    EXPECT_EQ(xxh32({}), 0x02CC5D05u);
    EXPECT_EQ(xxh32(as_bytes_view("abc")), 0x32D153FFu);
    EXPECT_EQ(xxh32(as_bytes_view("Nobody inspects the spammish repetition")), 0xE2293B2Fu);
}

// ---- zstd -------------------------------------------------------------------

bytes zstd_stream_without_content_size(const bytes& in) {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
    bytes out(ZSTD_compressBound(in.size()) + 64);
    ZSTD_outBuffer o{out.data(), out.size(), 0};
    ZSTD_inBuffer i{in.data(), in.size(), 0};
    while (ZSTD_compressStream2(cctx, &o, &i, ZSTD_e_end) != 0) {
    }
    ZSTD_freeCCtx(cctx);
    out.resize(o.pos);
    return out;
}

TEST(zstd, decodes_frames_without_content_size) {
    bytes in = text_bytes(500000);
    bytes c = zstd_stream_without_content_size(in);
    ASSERT_EQ(ZSTD_getFrameContentSize(c.data(), c.size()), ZSTD_CONTENTSIZE_UNKNOWN);
    auto d = decompress(compression::zstd, c);
    ASSERT_TRUE(d) << d.err().message;
    EXPECT_EQ(*d, in);
}

TEST(zstd, rejects_bytes_after_the_frame) {
    auto a = compress(compression::zstd, as_bytes_view("abc"));
    ASSERT_TRUE(a);
    EXPECT_EQ(decompress(compression::zstd, concat(*a, {0x01, 0x02, 0x03, 0x04, 0x05})).code(),
              error_code::corrupt_message);
}

TEST(zstd, decodes_concatenated_frames) {
    auto a = compress(compression::zstd, as_bytes_view("abc"));
    bytes b = zstd_stream_without_content_size({'d', 'e', 'f'});
    ASSERT_TRUE(a);
    auto d = decompress(compression::zstd, concat(*a, b));
    ASSERT_TRUE(d) << d.err().message;
    EXPECT_EQ(as_string_view(*d), "abcdef");
}

TEST(zstd, does_not_trust_a_huge_declared_content_size) {
    bytes in = text_bytes(1000);
    auto c = compress(compression::zstd, in);
    ASSERT_TRUE(c);
    auto d = decompress(compression::zstd, *c, 999);
    EXPECT_EQ(d.code(), error_code::corrupt_message);
}

}  // namespace
}  // namespace samsa::record
