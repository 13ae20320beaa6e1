#pragma once
// A librdkafka handle set up from the shared client options, with what every
// verb needs around it: bounded admin calls, cluster metadata, watermarks, and
// error messages that say why the cluster could not be reached.
//
// Owned by one thread; librdkafka's own threads only touch the connection-error
// record, under its mutex.
#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "tools/client_options.h"

namespace samsa::tools {

enum class client_kind { producer, consumer };

struct broker_info {
    int32_t id = -1;
    std::string host;
    int port = 0;
};

struct partition_info {
    int32_t id = 0;
    int32_t leader = -1;
    std::vector<int32_t> replicas;
    std::vector<int32_t> isr;
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
};

struct topic_info {
    std::string name;
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
    std::vector<partition_info> partitions;  // sorted by id
};

struct cluster_metadata {
    std::vector<broker_info> brokers;  // sorted by id
    std::vector<topic_info> topics;    // sorted by name
    const topic_info* find(std::string_view topic) const;
};

struct watermarks {
    int64_t low = -1;
    int64_t high = -1;
};

// Kafka's internal topics (listed unless --exclude-internal).
bool is_internal_topic(std::string_view topic);

struct event_deleter {
    void operator()(rd_kafka_event_t* ev) const { rd_kafka_event_destroy(ev); }
};
using event_ptr = std::unique_ptr<rd_kafka_event_t, event_deleter>;

struct partition_list_deleter {
    void operator()(rd_kafka_topic_partition_list_t* l) const {
        rd_kafka_topic_partition_list_destroy(l);
    }
};
using partition_list_ptr = std::unique_ptr<rd_kafka_topic_partition_list_t, partition_list_deleter>;

// Producer callbacks a verb may install; `user` is handed back by user_data().
struct client_hooks {
    void (*delivery)(rd_kafka_t*, const rd_kafka_message_t*, void* opaque) = nullptr;
    void* user = nullptr;
};

class kafka_client {
  public:
    // `settings` are applied after --command-config, so they win.
    static result<kafka_client> create(client_kind kind, const client_options& opts,
                                       const property_list& settings = {},
                                       const client_hooks& hooks = {});

    // In a hook: the `user` pointer given at creation (`opaque` is the callback's).
    static void* user_data(void* opaque);

    kafka_client(kafka_client&&) noexcept = default;
    kafka_client& operator=(kafka_client&&) noexcept = default;
    ~kafka_client();

    rd_kafka_t* handle() const { return _rk.get(); }
    std::chrono::milliseconds timeout() const { return _timeout; }
    int timeout_ms() const { return int(_timeout.count()); }
    const std::string& bootstrap() const { return _bootstrap; }

    // A one-line message for `what` failing with `err`; when the cause is that
    // no broker answered, says so and names the last connection error seen.
    std::string explain(std::string_view what, rd_kafka_resp_err_t err,
                        std::string_view detail = {}) const;
    // Whether a connection to some broker has ever been established.
    bool ever_connected() const;

    // All topics, brokers and partition leaders, within the timeout.
    result<cluster_metadata> metadata();
    result<watermarks> query_watermarks(const std::string& topic, int32_t partition);

    // Runs one Admin API call: `start` issues it with the given options onto the
    // given queue; returns the result event once it arrives (or an error after the
    // timeout). Per-item errors stay in the event for the caller to read.
    result<event_ptr> admin_call(
        rd_kafka_admin_op_t op, std::string_view what,
        const std::function<void(rd_kafka_AdminOptions_t*, rd_kafka_queue_t*)>& start);

    // For consumers: leave the group and commit within the timeout, never longer.
    void close_consumer();

  private:
    struct callbacks;  // connection errors seen by librdkafka's threads
    struct handle_deleter {
        void operator()(rd_kafka_t* rk) const;
    };

    kafka_client() = default;

    // Declared before _rk: librdkafka's threads may call back until the handle is gone.
    std::unique_ptr<callbacks> _callbacks;
    std::unique_ptr<rd_kafka_t, handle_deleter> _rk;
    std::chrono::milliseconds _timeout{30'000};
    std::string _bootstrap;
    bool _consumer = false;
};

// Reports a failed verb: "Error: <message>" on stderr; returns the exit code 1.
int fail(const samsa::error& e);
int fail(std::string_view message);
// A raw answer's error: its message when it has one, else Kafka's text for the code.
std::string message_of(int16_t code, const std::optional<std::string>& message);

}  // namespace samsa::tools
