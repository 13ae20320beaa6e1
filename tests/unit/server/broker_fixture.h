#pragma once
// An in-process one-node cluster (process.roles=broker,controller, node.id=1)
// for the handler tests of tests/unit/server/: a real server on 127.0.0.1
// with port 0 listeners, a fresh log dir formatted as `samsa server` does,
// and blocking helpers that speak the Kafka protocol to it over loopback TCP.
//
// One broker serves the whole test binary: it starts on first use and stops
// (removing its log dir) when the tests end. Tests share it, so each one
// works on topics and groups with names of its own (unique_name()).
//
//   class produce_test : public broker_test {};
//   TEST_F(produce_test, unknown_topic) {
//       protocol::produce_request req;
//       ...
//       auto resp = broker().call<protocol::produce_response>(req, 9);
//       EXPECT_ERROR(resp.responses[0].partition_responses[0].error_code,
//                    error_code::unknown_topic_or_partition);
//   }
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/error.h"
#include "common/uuid.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"
#include "protocol/reader.h"
#include "protocol/writer.h"
#include "record/batch_builder.h"

namespace samsa::config {
struct loaded_broker_config;
}
namespace samsa::server {
class server;
}

namespace samsa::server::test {

// Error codes compared by name, so that a failure reads
// "UNKNOWN_TOPIC_OR_PARTITION vs NONE" rather than "3 vs 0".
#define EXPECT_ERROR(actual, expected)                                       \
    EXPECT_EQ(::samsa::error_name(static_cast<::samsa::error_code>(actual)), \
              ::samsa::error_name(expected))
#define ASSERT_ERROR(actual, expected)                                       \
    ASSERT_EQ(::samsa::error_name(static_cast<::samsa::error_code>(actual)), \
              ::samsa::error_name(expected))

// Which listener a request goes to.
enum class listener_kind { client, controller };

// What a raw exchange came to: the answer's frame (after its size prefix),
// or a closed connection.
struct raw_answer {
    bool closed = false;
    bytes frame;  // response header + body
};

// Every deadline of the fixture; generous, for a loaded machine.
inline constexpr std::chrono::seconds k_deadline{30};

class broker_fixture {
  public:
    // The shared broker, started on first use. Never null; check started().
    static broker_fixture& instance();
    // Stops the shared broker if it was started (the test environment's TearDown).
    static void shut_down();

    ~broker_fixture();

    bool started() const { return _started; }
    const std::string& start_error() const { return _start_error; }
    uint16_t port(listener_kind l = listener_kind::client) const {
        return l == listener_kind::client ? _client_port : _controller_port;
    }
    int32_t node_id() const { return 1; }
    const std::string& cluster_id() const { return _cluster_id; }
    const std::string& log_dir() const { return _log_dir; }
    server& srv() { return *_server; }

    // One request and its answer on a fresh connection: encodes the request
    // header (the version's header version) and `req`, reads the framed
    // answer, checks its correlation id and decodes it as Response. A closed
    // connection, a timeout or an answer that fails to decode is a test
    // failure (and a default Response).
    template <typename Response, typename Request>
    Response call(int16_t api_key, int16_t api_version, const Request& req,
                  listener_kind l = listener_kind::client,
                  const std::string& client_id = k_client_id) {
        protocol::writer body;
        req.encode(body, api_version);
        const int32_t correlation_id = next_correlation_id();
        raw_answer answer =
            call_raw(frame(api_key, api_version, body.buffer(), correlation_id, client_id), l);
        Response resp;
        if (answer.closed) {
            ADD_FAILURE() << "connection closed instead of an answer to api_key=" << api_key
                          << " api_version=" << api_version;
            return resp;
        }
        auto held = std::make_shared<bytes>(std::move(answer.frame));
        bytes_view b = *held;
        size_t header_len = 0;
        if (!check_response_header(api_key, api_version, correlation_id, b, header_len)) {
            return resp;
        }
        protocol::reader r(b.subspan(header_len));
        resp.decode(r, api_version);
        EXPECT_TRUE(r.ok()) << "response failed to decode: api_key=" << api_key
                            << " api_version=" << api_version;
        EXPECT_EQ(r.remaining(), 0u) << "trailing bytes in the response";
        keep(std::move(held));  // decoded records view the frame
        return resp;
    }
    template <typename Response, typename Request>
    Response call(const Request& req, int16_t api_version, listener_kind l = listener_kind::client,
                  const std::string& client_id = k_client_id) {
        return call<Response>(Request::api_key, api_version, req, l, client_id);
    }

    // The client id of every request unless a test names another.
    static constexpr const char* k_client_id = "samsa-unit";
    // A request frame: size prefix, request header (the version's header
    // version and `client_id`), `body`.
    static bytes frame(int16_t api_key, int16_t api_version, bytes_view body,
                       int32_t correlation_id = 7, const std::string& client_id = k_client_id);
    // Writes `wire` as it is on a fresh connection and reads one answer
    // frame, or sees the broker close the connection.
    raw_answer call_raw(const bytes& wire, listener_kind l = listener_kind::client);

    // ---- helpers on top of call()

    // CreateTopics (v7) of one topic; returns the topic's error code.
    int16_t try_create_topic(const std::string& name, int32_t partitions, int16_t replication = 1,
                             const std::map<std::string, std::string>& configs = {});
    // Creates a topic and waits until Metadata shows a leader for every
    // partition; returns its topic id (zero on failure, which is reported).
    uuid create_topic(const std::string& name, int32_t partitions = 1, int16_t replication = 1,
                      const std::map<std::string, std::string>& configs = {});
    // Produce (v9, acks=-1) of one batch of `records` records to one
    // partition; the partition's answer.
    protocol::produce_response produce_request(const std::string& topic, int32_t partition,
                                               int records = 1,
                                               const std::string& client_id = k_client_id);
    protocol::produce_response::topic_produce_response::partition_produce_response produce(
        const std::string& topic, int32_t partition, int records = 1);
    // Metadata (v12) of the named topics, without auto-creation.
    protocol::metadata_response metadata(const std::vector<std::string>& topics);
    // Polls `done` every few milliseconds until it holds or k_deadline passes.
    static bool wait_until(const std::function<bool()>& done,
                           std::chrono::milliseconds deadline = k_deadline);

  private:
    broker_fixture() = default;
    void start();
    void stop();
    int32_t next_correlation_id();
    static bool check_response_header(int16_t api_key, int16_t api_version, int32_t correlation_id,
                                      bytes_view b, size_t& header_len);
    void keep(std::shared_ptr<bytes> frame);

    std::unique_ptr<config::loaded_broker_config> _config;
    std::unique_ptr<server> _server;
    bool _started = false;
    std::string _start_error;
    std::string _root;  // temp dir: removed by stop()
    std::string _log_dir;
    std::string _cluster_id;
    uint16_t _client_port = 0;
    uint16_t _controller_port = 0;
    std::mutex _mu;
    int32_t _next_correlation = 1;
    std::deque<std::shared_ptr<bytes>> _kept;
};

// A v2 batch of `n` records "k<i>" -> "v<i>".
bytes make_batch(int n, record::batch_options options = {});

// A name no other test of this binary uses: "<prefix>-<n>".
std::string unique_name(const std::string& prefix);

// Base of every test that talks to the broker: fails fast if it did not start.
class broker_test : public ::testing::Test {
  protected:
    void SetUp() override {
        _broker = &broker_fixture::instance();
        ASSERT_TRUE(_broker->started())
            << "the in-process broker did not start: " << _broker->start_error();
    }
    broker_fixture& broker() { return *_broker; }

  private:
    broker_fixture* _broker = nullptr;
};

}  // namespace samsa::server::test
