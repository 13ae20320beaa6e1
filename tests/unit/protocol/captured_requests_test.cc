// Requests exactly as a real client sent them: frames from librdkafka 2.0.2
// (kcat 1.7.1), captured on loopback by tests/integration/tools/capture_frames.py
// and kept as hex in tests/unit/protocol/data/. The generated codecs must decode
// them to the fields the client meant, consume every byte, and re-encode them
// byte for byte.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <string>

#include "common/bytes.h"
#include "protocol/generated/api_table.h"
#include "protocol/generated/api_versions_request.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/request_header.h"
#include "protocol/reader.h"
#include "protocol/writer.h"

namespace samsa::protocol {
namespace {

// A captured frame split into its parts.
struct captured_request {
    bytes frame;  // as on the wire, with the int32 size prefix
    int16_t header_version = -1;
    request_header header;
    size_t body_offset = 0;  // into `frame`

    bytes_view payload() const { return bytes_view(frame).subspan(4); }
    bytes_view body() const { return bytes_view(frame).subspan(body_offset); }
};

// Reads a .hex fixture: '#' lines are comments, whitespace is ignored.
void load_hex(const std::string& name, bytes& out) {
    const std::string path = std::string(SAMSA_SOURCE_DIR) + "/tests/unit/protocol/data/" + name;
    std::ifstream in(path);
    ASSERT_TRUE(in) << "cannot open " << path;
    std::string digits;
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '#') {
            continue;
        }
        for (char c : line) {
            if (std::isspace(static_cast<unsigned char>(c))) {
                continue;
            }
            ASSERT_TRUE(std::isxdigit(static_cast<unsigned char>(c)))
                << path << ": not a hex digit: '" << c << "'";
            digits += c;
        }
    }
    ASSERT_EQ(digits.size() % 2, 0u) << path << ": odd number of hex digits";
    ASSERT_FALSE(digits.empty()) << path << ": no bytes";
    out.clear();
    for (size_t i = 0; i < digits.size(); i += 2) {
        out.push_back(uint8_t(std::stoul(digits.substr(i, 2), nullptr, 16)));
    }
}

void load_capture(const std::string& name, captured_request& c) {
    ASSERT_NO_FATAL_FAILURE(load_hex(name, c.frame));
    ASSERT_GE(c.frame.size(), 4u + 8u);
    ASSERT_EQ(load_be32(c.frame.data()), c.frame.size() - 4) << "size prefix";
    // The header version follows from the API and version, read first.
    const int16_t key = int16_t(load_be16(c.frame.data() + 4));
    const int16_t version = int16_t(load_be16(c.frame.data() + 6));
    c.header_version = request_header_version(key, version);
    ASSERT_GE(c.header_version, 1) << "api key " << key;
    reader r(c.payload());
    c.header.decode(r, c.header_version);
    ASSERT_TRUE(r.ok()) << "request header failed to decode";
    c.body_offset = c.frame.size() - r.remaining();
}

// Decodes the body as Request in the header's version, requiring every byte used.
template <typename Request>
void decode_body(const captured_request& c, Request& req) {
    ASSERT_EQ(c.header.request_api_key, Request::api_key);
    reader r(c.body());
    req.decode(r, c.header.request_api_version);
    ASSERT_TRUE(r.ok()) << "body failed to decode";
    ASSERT_EQ(r.remaining(), 0u) << "trailing bytes after the body";
}

// Header and body encoded again must be the captured bytes exactly.
template <typename Request>
void expect_reencodes_exactly(const captured_request& c, const Request& req) {
    writer w;
    c.header.encode(w, c.header_version);
    req.encode(w, c.header.request_api_version);
    const bytes_view want = c.payload();
    EXPECT_EQ(w.buffer(), bytes(want.begin(), want.end()));
}

TEST(captured_requests, librdkafka_api_versions_v3_uses_request_header_v2) {
    captured_request c;
    ASSERT_NO_FATAL_FAILURE(load_capture("librdkafka_api_versions_v3.hex", c));

    EXPECT_EQ(c.header_version, 2);
    EXPECT_EQ(c.header.request_api_key, 18);
    EXPECT_EQ(c.header.request_api_version, 3);
    EXPECT_EQ(c.header.correlation_id, 1);
    // client_id is a classic int16-length string even in header v2.
    EXPECT_EQ(c.header.client_id, std::optional<std::string>("rdkafka"));
    EXPECT_EQ(load_be16(c.frame.data() + 12), 7u);
    EXPECT_TRUE(c.header.unknown_tags.empty());
    EXPECT_EQ(c.body_offset, 4u + 8u + 2u + 7u + 1u);
}

TEST(captured_requests, librdkafka_api_versions_v3_names_the_client_software) {
    captured_request c;
    ASSERT_NO_FATAL_FAILURE(load_capture("librdkafka_api_versions_v3.hex", c));
    api_versions_request req;
    ASSERT_NO_FATAL_FAILURE(decode_body(c, req));

    EXPECT_EQ(req.client_software_name, "librdkafka");
    EXPECT_EQ(req.client_software_version, "2.0.2");
    EXPECT_TRUE(req.unknown_tags.empty());
    expect_reencodes_exactly(c, req);
}

TEST(captured_requests, librdkafka_metadata_v4_for_one_topic) {
    captured_request c;
    ASSERT_NO_FATAL_FAILURE(load_capture("librdkafka_metadata.hex", c));
    EXPECT_EQ(c.header_version, 1);
    EXPECT_EQ(c.header.request_api_version, 4);
    EXPECT_EQ(c.header.correlation_id, 2);
    EXPECT_EQ(c.header.client_id, std::optional<std::string>("rdkafka"));

    metadata_request req;
    ASSERT_NO_FATAL_FAILURE(decode_body(c, req));

    ASSERT_TRUE(req.topics.has_value());
    ASSERT_EQ(req.topics->size(), 1u);
    EXPECT_EQ(req.topics->at(0).name, std::optional<std::string>("captured-topic"));
    EXPECT_TRUE(req.topics->at(0).topic_id.is_zero());
    EXPECT_TRUE(req.allow_auto_topic_creation);
    expect_reencodes_exactly(c, req);
}

TEST(captured_requests, librdkafka_metadata_v4_null_topic_list_means_every_topic) {
    captured_request c;
    ASSERT_NO_FATAL_FAILURE(load_capture("librdkafka_metadata_all_topics.hex", c));
    metadata_request req;
    ASSERT_NO_FATAL_FAILURE(decode_body(c, req));

    EXPECT_FALSE(req.topics.has_value());
    EXPECT_TRUE(req.allow_auto_topic_creation);
    expect_reencodes_exactly(c, req);
}

TEST(captured_requests, librdkafka_metadata_v4_empty_topic_list_asks_for_brokers_only) {
    captured_request c;
    ASSERT_NO_FATAL_FAILURE(load_capture("librdkafka_metadata_brokers_only.hex", c));
    metadata_request req;
    ASSERT_NO_FATAL_FAILURE(decode_body(c, req));

    ASSERT_TRUE(req.topics.has_value());
    EXPECT_TRUE(req.topics->empty());
    EXPECT_FALSE(req.allow_auto_topic_creation);
    expect_reencodes_exactly(c, req);
}

TEST(captured_requests, every_strict_prefix_of_a_captured_body_fails_to_decode) {
    for (const char* name : {"librdkafka_api_versions_v3.hex", "librdkafka_metadata.hex"}) {
        captured_request c;
        ASSERT_NO_FATAL_FAILURE(load_capture(name, c));
        const bytes_view body = c.body();
        for (size_t cut = 0; cut < body.size(); ++cut) {
            reader r(body.first(cut));
            if (c.header.request_api_key == api_versions_request::api_key) {
                api_versions_request req;
                req.decode(r, c.header.request_api_version);
            } else {
                metadata_request req;
                req.decode(r, c.header.request_api_version);
            }
            EXPECT_FALSE(r.ok()) << name << ": a body cut to " << cut << " bytes decoded";
        }
    }
}

}  // namespace
}  // namespace samsa::protocol
