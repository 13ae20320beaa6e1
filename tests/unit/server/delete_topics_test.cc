// DeleteTopics (key 20) against the in-process broker: topics deleted by
// name and by id vanish from Metadata; unknown names and ids, a name and id
// together, and duplicates get the error codes Kafka's controller answers.
#include <gtest/gtest.h>

#include "broker_fixture.h"
#include "protocol/generated/delete_topics_request.h"
#include "protocol/generated/delete_topics_response.h"

namespace samsa::server::test {
namespace {

using protocol::delete_topics_request;
using protocol::delete_topics_response;

class delete_topics_test : public broker_test {
  protected:
    delete_topics_response by_names(std::vector<std::string> names, int16_t version = 5) {
        delete_topics_request req;
        req.topic_names = std::move(names);
        req.timeout_ms = 30000;
        return broker().call<delete_topics_response>(req, version);
    }
    delete_topics_response by_state(std::vector<delete_topics_request::delete_topic_state> ts) {
        delete_topics_request req;
        req.topics = std::move(ts);
        req.timeout_ms = 30000;
        return broker().call<delete_topics_response>(req, 6);
    }
    bool gone(const std::string& name) {
        return broker_fixture::wait_until([&] {
            auto md = broker().metadata({name});
            return md.topics.size() == 1 &&
                   md.topics[0].error_code == int16_t(error_code::unknown_topic_or_partition);
        });
    }
};

delete_topics_request::delete_topic_state state(std::optional<std::string> name, uuid id = {}) {
    delete_topics_request::delete_topic_state s;
    s.name = std::move(name);
    s.topic_id = id;
    return s;
}

TEST_F(delete_topics_test, deletes_by_name) {
    const auto name = unique_name("dt-name");
    broker().create_topic(name);
    auto resp = by_names({name});
    ASSERT_EQ(resp.responses.size(), 1u);
    EXPECT_EQ(resp.responses[0].name, name);
    EXPECT_ERROR(resp.responses[0].error_code, error_code::none);
    EXPECT_TRUE(gone(name));
}

TEST_F(delete_topics_test, deletes_by_id) {
    const auto name = unique_name("dt-id");
    const uuid id = broker().create_topic(name);
    auto resp = by_state({state(std::nullopt, id)});
    ASSERT_EQ(resp.responses.size(), 1u);
    EXPECT_ERROR(resp.responses[0].error_code, error_code::none);
    EXPECT_EQ(resp.responses[0].topic_id, id);
    EXPECT_EQ(resp.responses[0].name, name);
    EXPECT_TRUE(gone(name));
}

TEST_F(delete_topics_test, unknown_name_is_unknown_topic_or_partition) {
    auto resp = by_names({unique_name("dt-missing")});
    ASSERT_EQ(resp.responses.size(), 1u);
    EXPECT_ERROR(resp.responses[0].error_code, error_code::unknown_topic_or_partition);
}

TEST_F(delete_topics_test, unknown_id_is_unknown_topic_id) {
    auto resp = by_state({state(std::nullopt, uuid::random())});
    ASSERT_EQ(resp.responses.size(), 1u);
    EXPECT_ERROR(resp.responses[0].error_code, error_code::unknown_topic_id);
}

TEST_F(delete_topics_test, name_and_id_together_is_invalid_request) {
    const auto name = unique_name("dt-both");
    const uuid id = broker().create_topic(name);
    auto resp = by_state({state(name, id)});
    ASSERT_EQ(resp.responses.size(), 1u);
    EXPECT_ERROR(resp.responses[0].error_code, error_code::invalid_request);
    // Still there.
    auto md = broker().metadata({name});
    ASSERT_EQ(md.topics.size(), 1u);
    EXPECT_ERROR(md.topics[0].error_code, error_code::none);
}

TEST_F(delete_topics_test, duplicate_name_is_invalid_request) {
    const auto name = unique_name("dt-dup");
    broker().create_topic(name);
    auto resp = by_names({name, name});
    ASSERT_FALSE(resp.responses.empty());
    for (const auto& r : resp.responses) {
        EXPECT_ERROR(r.error_code, error_code::invalid_request);
    }
}

TEST_F(delete_topics_test, mixed_request_answers_each_topic) {
    const auto name = unique_name("dt-mixed");
    broker().create_topic(name);
    const auto missing = unique_name("dt-mixed-missing");
    auto resp = by_names({name, missing});
    ASSERT_EQ(resp.responses.size(), 2u);
    for (const auto& r : resp.responses) {
        EXPECT_ERROR(r.error_code,
                     r.name == name ? error_code::none : error_code::unknown_topic_or_partition);
    }
}

}  // namespace
}  // namespace samsa::server::test
