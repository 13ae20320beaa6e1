#include "tools/kafka_client.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <thread>

namespace samsa::tools {

namespace {

using steady = std::chrono::steady_clock;

bool means_unreachable(rd_kafka_resp_err_t err) {
    switch (err) {
        case RD_KAFKA_RESP_ERR__TIMED_OUT:
        case RD_KAFKA_RESP_ERR__TRANSPORT:
        case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
        case RD_KAFKA_RESP_ERR__RESOLVE:
        case RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
        case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT:
        case RD_KAFKA_RESP_ERR__WAIT_COORD:
            return true;
        default:
            return false;
    }
}

}  // namespace

// Connection errors reported by librdkafka's broker threads, kept so that a
// timeout can be explained ("Connection refused") instead of just reported.
struct kafka_client::callbacks {
    std::mutex mu;
    std::string last_connection_error;
    bool connected = false;  // some request got an answer
    bool verbose = false;
    void* user = nullptr;

    void record(std::string message) {
        // "[thrd:...]: 127.0.0.1:1/bootstrap: Connect to ... failed: ..." -> after the thread tag.
        if (message.rfind("[thrd:", 0) == 0) {
            auto close = message.find("]: ");
            if (close != std::string::npos) {
                message.erase(0, close + 3);
            }
        }
        // "... failed: Connection refused (after 0ms in state CONNECT, ...)": the
        // parenthesis is librdkafka's bookkeeping, not part of the reason.
        if (auto after = message.find(" (after "); after != std::string::npos) {
            message.erase(after);
        }
        std::lock_guard lock(mu);
        last_connection_error = std::move(message);
    }

    static void on_log(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
        auto* self = static_cast<callbacks*>(rd_kafka_opaque(rk));
        if (self == nullptr) {
            return;
        }
        if (self->verbose) {
            std::fprintf(stderr, "%%%d|%s|%s\n", level, fac, buf);
        }
        std::string_view f(fac);
        if (level <= 4 && (f == "FAIL" || f == "ERROR" || f == "BROKERFAIL")) {
            self->record(buf);
        }
    }

    static void on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
        auto* self = static_cast<callbacks*>(opaque);
        if (self == nullptr) {
            return;
        }
        if (self->verbose) {
            std::fprintf(stderr, "error: %s: %s\n", rd_kafka_err2str(rd_kafka_resp_err_t(err)),
                         reason);
        }
        if (err == RD_KAFKA_RESP_ERR__TRANSPORT || err == RD_KAFKA_RESP_ERR__RESOLVE ||
            err == RD_KAFKA_RESP_ERR__SSL || err == RD_KAFKA_RESP_ERR__AUTHENTICATION) {
            self->record(reason);
        }
    }
};

void kafka_client::handle_deleter::operator()(rd_kafka_t* rk) const {
    // Consumers are closed (bounded) by close_consumer(); the default close in
    // rd_kafka_destroy() could wait on an unreachable coordinator.
    rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
}

kafka_client::~kafka_client() = default;

bool is_internal_topic(std::string_view topic) {
    return topic == "__consumer_offsets" || topic == "__transaction_state";
}

const topic_info* cluster_metadata::find(std::string_view topic) const {
    for (const auto& t : topics) {
        if (t.name == topic) {
            return &t;
        }
    }
    return nullptr;
}

void* kafka_client::user_data(void* opaque) {
    return opaque ? static_cast<callbacks*>(opaque)->user : nullptr;
}

result<kafka_client> kafka_client::create(client_kind kind, const client_options& opts,
                                          const property_list& settings,
                                          const client_hooks& hooks) {
    kafka_client client;
    client._callbacks = std::make_unique<callbacks>();
    client._callbacks->verbose = opts.verbose;
    client._callbacks->user = hooks.user;
    client._timeout = opts.timeout;
    client._bootstrap = opts.bootstrap_server;
    client._consumer = kind == client_kind::consumer;

    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char errstr[512];
    auto set = [&](const std::string& k, const std::string& v, bool from_file) -> status {
        auto res = rd_kafka_conf_set(conf, k.c_str(), v.c_str(), errstr, sizeof errstr);
        if (res == RD_KAFKA_CONF_OK) {
            return {};
        }
        if (res == RD_KAFKA_CONF_UNKNOWN && from_file) {
            // Java-client-only keys (key.serializer, sasl.jaas.config, ...) are
            // common in shared client files; Kafka's tools ignore unknown keys too.
            std::fprintf(stderr,
                         "Warning: ignoring client setting '%s' (not known to librdkafka)\n",
                         k.c_str());
            return {};
        }
        return tool_error("invalid client setting " + k + "=" + v + ": " + errstr);
    };

    property_list file_settings;
    if (!opts.command_config.empty()) {
        auto loaded = load_properties_file(opts.command_config);
        if (!loaded) {
            rd_kafka_conf_destroy(conf);
            return loaded.err();
        }
        auto translated = for_librdkafka(*loaded);
        if (!translated) {
            rd_kafka_conf_destroy(conf);
            return translated.err();
        }
        file_settings = std::move(*translated);
    }
    // Defaults first, so that the command config and the verb's settings override them.
    property_list defaults = {
        {"bootstrap.servers", opts.bootstrap_server},
        {"log.connection.close", "false"},
        // A single unreachable broker should not keep one request waiting past the timeout.
        {"socket.timeout.ms",
         std::to_string(std::clamp<int64_t>(opts.timeout.count(), 10, 300'000))},
    };
    for (const auto& [k, v] : defaults) {
        if (auto s = set(k, v, false); !s) {
            rd_kafka_conf_destroy(conf);
            return s.err();
        }
    }
    for (const auto& [k, v] : file_settings) {
        if (auto s = set(k, v, true); !s) {
            rd_kafka_conf_destroy(conf);
            return s.err();
        }
    }
    for (const auto& [k, v] : settings) {
        if (auto s = set(k, v, false); !s) {
            rd_kafka_conf_destroy(conf);
            return s.err();
        }
    }
    // --bootstrap-server names the cluster even when the command config has one too.
    if (auto s = set("bootstrap.servers", opts.bootstrap_server, false); !s) {
        rd_kafka_conf_destroy(conf);
        return s.err();
    }

    rd_kafka_conf_set_opaque(conf, client._callbacks.get());
    rd_kafka_conf_set_log_cb(conf, &callbacks::on_log);
    rd_kafka_conf_set_error_cb(conf, &callbacks::on_error);
    if (hooks.delivery != nullptr) {
        rd_kafka_conf_set_dr_msg_cb(conf, hooks.delivery);
    }

    rd_kafka_t* rk =
        rd_kafka_new(kind == client_kind::consumer ? RD_KAFKA_CONSUMER : RD_KAFKA_PRODUCER, conf,
                     errstr, sizeof errstr);
    if (rk == nullptr) {
        rd_kafka_conf_destroy(conf);
        return tool_error(std::string("cannot create the Kafka client: ") + errstr);
    }
    client._rk.reset(rk);
    return client;
}

bool kafka_client::ever_connected() const {
    std::lock_guard lock(_callbacks->mu);
    return _callbacks->connected;
}

std::string kafka_client::explain(std::string_view what, rd_kafka_resp_err_t err,
                                  std::string_view detail) const {
    std::string last;
    bool connected = false;
    {
        std::lock_guard lock(_callbacks->mu);
        last = _callbacks->last_connection_error;
        connected = _callbacks->connected;
    }
    if (means_unreachable(err) && !connected) {
        std::string msg =
            "could not reach the cluster at " + _bootstrap + " within " + format_duration(_timeout);
        if (!last.empty()) {
            msg += " (" + last + ")";
        }
        return msg;
    }
    std::string msg(what);
    msg += ": ";
    msg += detail.empty() ? rd_kafka_err2str(err) : std::string(detail);
    return msg;
}

result<cluster_metadata> kafka_client::metadata() {
    const rd_kafka_metadata_t* md = nullptr;
    rd_kafka_resp_err_t err = rd_kafka_metadata(_rk.get(), 1, nullptr, &md, timeout_ms());
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return tool_error(explain("metadata request failed", err));
    }
    {
        std::lock_guard lock(_callbacks->mu);
        _callbacks->connected = true;
    }
    cluster_metadata out;
    for (int i = 0; i < md->broker_cnt; ++i) {
        out.brokers.push_back({md->brokers[i].id, md->brokers[i].host, md->brokers[i].port});
    }
    for (int i = 0; i < md->topic_cnt; ++i) {
        const auto& t = md->topics[i];
        topic_info ti{t.topic, t.err, {}};
        for (int p = 0; p < t.partition_cnt; ++p) {
            const auto& mp = t.partitions[p];
            partition_info pi;
            pi.id = mp.id;
            pi.leader = mp.leader;
            pi.err = mp.err;
            pi.replicas.assign(mp.replicas, mp.replicas + mp.replica_cnt);
            pi.isr.assign(mp.isrs, mp.isrs + mp.isr_cnt);
            ti.partitions.push_back(std::move(pi));
        }
        std::sort(ti.partitions.begin(), ti.partitions.end(),
                  [](const auto& a, const auto& b) { return a.id < b.id; });
        out.topics.push_back(std::move(ti));
    }
    rd_kafka_metadata_destroy(md);
    std::sort(out.brokers.begin(), out.brokers.end(),
              [](const auto& a, const auto& b) { return a.id < b.id; });
    std::sort(out.topics.begin(), out.topics.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
}

result<watermarks> kafka_client::query_watermarks(const std::string& topic, int32_t partition) {
    watermarks w;
    rd_kafka_resp_err_t err = rd_kafka_query_watermark_offsets(_rk.get(), topic.c_str(), partition,
                                                               &w.low, &w.high, timeout_ms());
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return tool_error(
            explain("cannot read the offsets of " + topic + "-" + std::to_string(partition), err));
    }
    return w;
}

result<event_ptr> kafka_client::admin_call(
    rd_kafka_admin_op_t op, std::string_view what,
    const std::function<void(rd_kafka_AdminOptions_t*, rd_kafka_queue_t*)>& start) {
    char errstr[512];
    rd_kafka_AdminOptions_t* options = rd_kafka_AdminOptions_new(_rk.get(), op);
    rd_kafka_AdminOptions_set_request_timeout(options, timeout_ms(), errstr, sizeof errstr);
    // The broker-side wait (topic creation, deletion) must end before the request
    // times out, or a slow success would be reported as a timeout.
    int operation_ms = std::max(1, timeout_ms() * 3 / 4);
    switch (op) {
        case RD_KAFKA_ADMIN_OP_CREATETOPICS:
        case RD_KAFKA_ADMIN_OP_DELETETOPICS:
        case RD_KAFKA_ADMIN_OP_CREATEPARTITIONS:
        case RD_KAFKA_ADMIN_OP_DELETERECORDS:
            rd_kafka_AdminOptions_set_operation_timeout(options, operation_ms, errstr,
                                                        sizeof errstr);
            break;
        default:
            break;
    }
    rd_kafka_queue_t* queue = rd_kafka_queue_new(_rk.get());
    start(options, queue);
    rd_kafka_AdminOptions_destroy(options);
    // librdkafka times the request out itself; the margin only guards against a lost event.
    event_ptr ev(rd_kafka_queue_poll(queue, timeout_ms() + 2000));
    rd_kafka_queue_destroy(queue);
    if (!ev) {
        return tool_error(explain(what, RD_KAFKA_RESP_ERR__TIMED_OUT));
    }
    rd_kafka_resp_err_t err = rd_kafka_event_error(ev.get());
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        const char* detail = rd_kafka_event_error_string(ev.get());
        // A broker's answer (librdkafka's positive codes are Kafka's) keeps its
        // code, for the verbs that print Kafka's message for it.
        if (err > 0) {
            return samsa::error{error_code(err), explain(what, err, detail ? detail : "")};
        }
        return tool_error(explain(what, err, detail ? detail : ""));
    }
    // Not proof of a connection: some calls (ListConsumerGroups) carry their
    // timeouts as per-item errors inside a successful event.
    return ev;
}

void kafka_client::close_consumer() {
    if (!_consumer || !_rk) {
        return;
    }
    rd_kafka_t* rk = _rk.get();
    rd_kafka_queue_t* queue = rd_kafka_queue_new(rk);
    rd_kafka_error_t* error = rd_kafka_consumer_close_queue(rk, queue);
    if (error != nullptr) {
        rd_kafka_error_destroy(error);
    } else {
        auto deadline = steady::now() + _timeout;
        while (!rd_kafka_consumer_closed(rk) && steady::now() < deadline) {
            event_ptr ev(rd_kafka_queue_poll(queue, 100));
            if (ev && rd_kafka_event_type(ev.get()) == RD_KAFKA_EVENT_REBALANCE) {
                // Closing revokes the assignment: acknowledge it so the close can finish.
                if (std::string_view(rd_kafka_rebalance_protocol(rk)) == "COOPERATIVE") {
                    if (auto* e = rd_kafka_incremental_unassign(
                            rk, rd_kafka_event_topic_partition_list(ev.get()))) {
                        rd_kafka_error_destroy(e);
                    }
                } else {
                    rd_kafka_assign(rk, nullptr);
                }
            }
        }
    }
    rd_kafka_queue_destroy(queue);
}

int fail(const samsa::error& e) {
    return fail(std::string_view(e.message));
}

int fail(std::string_view message) {
    std::fprintf(stderr, "Error: %.*s\n", int(message.size()), message.data());
    return 1;
}

std::string message_of(int16_t code, const std::optional<std::string>& message) {
    return message && !message->empty() ? *message : std::string(error_message(error_code(code)));
}

}  // namespace samsa::tools
