// The in-process broker of the handler tests (broker_fixture.h): configured as
// `samsa server` configures a one-node combined broker+controller, started
// once per test binary and stopped by a test environment at the end.
#include "broker_fixture.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "common/config/broker_config.h"
#include "common/config/meta_properties.h"
#include "protocol/generated/api_table.h"
#include "protocol/generated/request_header.h"
#include "protocol/generated/response_header.h"
#include "server/server.h"

namespace samsa::server::test {

namespace {

// Stops the shared broker once every test has run.
class broker_environment : public ::testing::Environment {
  public:
    void TearDown() override { broker_fixture::shut_down(); }
};

[[maybe_unused]] auto* const k_environment =
    ::testing::AddGlobalTestEnvironment(new broker_environment);

// A free loopback port, held by a bound (not listening) SO_REUSEADDR socket
// until the caller closes `fd`: the server's listener (SO_REUSEADDR too) can
// bind and listen on it meanwhile, and no other process can take it. The
// controller listener needs its port up front: controller.quorum.voters names
// it, and this node reaches its own controller through it.
uint16_t reserve_port(int& fd) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        return 0;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = 0;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        ::close(fd);
        fd = -1;
        return 0;
    }
    return ntohs(addr.sin_port);
}

std::unique_ptr<broker_fixture>& shared() {
    static std::unique_ptr<broker_fixture> b;
    return b;
}

// A loopback TCP connection with send and receive timeouts, closed on scope exit.
class blocking_socket {
  public:
    explicit blocking_socket(uint16_t port) {
        _fd = ::socket(AF_INET, SOCK_STREAM, 0);
        if (_fd < 0) {
            return;
        }
        timeval tv{};
        tv.tv_sec = k_deadline.count();
        ::setsockopt(_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        ::setsockopt(_fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        int one = 1;
        ::setsockopt(_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(port);
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
            ::close(_fd);
            _fd = -1;
        }
    }
    ~blocking_socket() {
        if (_fd >= 0) {
            ::close(_fd);
        }
    }
    blocking_socket(const blocking_socket&) = delete;
    blocking_socket& operator=(const blocking_socket&) = delete;

    bool ok() const { return _fd >= 0; }

    // False if the peer closed the connection (or reset it) first.
    bool write_all(bytes_view b) {
        size_t done = 0;
        while (done < b.size()) {
            ssize_t n = ::send(_fd, b.data() + done, b.size() - done, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                return false;
            }
            done += size_t(n);
        }
        return true;
    }
    enum class read_status { ok, closed, timed_out };
    read_status read_all(uint8_t* p, size_t len) {
        size_t done = 0;
        while (done < len) {
            ssize_t n = ::recv(_fd, p + done, len - done, 0);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                return read_status::timed_out;
            }
            if (n <= 0) {
                return read_status::closed;
            }
            done += size_t(n);
        }
        return read_status::ok;
    }

  private:
    int _fd = -1;
};

}  // namespace

broker_fixture& broker_fixture::instance() {
    auto& b = shared();
    if (!b) {
        b.reset(new broker_fixture());
        b->start();
    }
    return *b;
}

void broker_fixture::shut_down() {
    shared().reset();
}

broker_fixture::~broker_fixture() {
    stop();
}

void broker_fixture::start() {
    // The data path sends with sendfile(2), which raises SIGPIPE when a test
    // closes its end early; the broker binary ignores it too.
    std::signal(SIGPIPE, SIG_IGN);
    if (std::getenv("SAMSA_TEST_BROKER_LOG") == nullptr) {
        spdlog::set_level(spdlog::level::warn);
    }
    std::error_code ec;
    std::string tmpl =
        (std::filesystem::temp_directory_path(ec) / "samsa-unit-server-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
        _start_error = "mkdtemp failed";
        return;
    }
    _root = tmpl;
    _log_dir = (std::filesystem::path(_root) / "data").string();

    int reserved_fd = -1;
    const uint16_t controller_port = reserve_port(reserved_fd);
    if (controller_port == 0) {
        _start_error = "no free port for the controller listener";
        return;
    }
    struct closer {
        int fd;
        ~closer() { ::close(fd); }
    } release{reserved_fd};
    const std::string controller = "127.0.0.1:" + std::to_string(controller_port);

    // server.properties of a one-node cluster, as tests/integration's harness
    // writes it; the client listener's port is left to the kernel.
    std::map<std::string, std::string> props = {
        {"process.roles", "broker,controller"},
        {"node.id", "1"},
        {"listeners", "PLAINTEXT://127.0.0.1:0,CONTROLLER://" + controller},
        {"controller.listener.names", "CONTROLLER"},
        {"controller.quorum.voters", "1@" + controller},
        {"log.dirs", _log_dir},
        {"num.partitions", "1"},
        {"offsets.topic.num.partitions", "1"},
        {"offsets.topic.replication.factor", "1"},
        {"transaction.state.log.num.partitions", "1"},
        {"transaction.state.log.replication.factor", "1"},
        {"transaction.state.log.min.isr", "1"},
        {"group.initial.rebalance.delay.ms", "0"},
        {"num.io.threads", "2"},
        {"broker.heartbeat.interval.ms", "100"},
        // No HTTP listener: test binaries run side by side (the metrics are
        // rendered directly in server/http tests).
        {"metrics.listener", ""},
    };
    auto loaded = config::make_broker_config(props, {});
    if (!loaded) {
        _start_error = "invalid config: " + loaded.err().message;
        return;
    }
    _config = std::make_unique<config::loaded_broker_config>(std::move(*loaded));
    const auto& cfg = _config->config;

    // What `samsa server` does to fresh log dirs before it starts the server.
    std::vector<std::filesystem::path> dirs(cfg.log_dirs.begin(), cfg.log_dirs.end());
    if (!cfg.metadata_log_dir.empty()) {
        dirs.emplace_back(cfg.metadata_log_dir);
    }
    auto identity = config::ensure_meta_properties(dirs, cfg.node_id);
    if (!identity) {
        _start_error = "format: " + identity.err().message;
        return;
    }
    _cluster_id = identity->cluster_id;

    _server = std::make_unique<server>(cfg, _cluster_id);
    if (auto st = _server->start(); !st) {
        _start_error = "start: " + st.err().message;
        _server.reset();
        return;
    }
    _client_port = _server->bound_port("PLAINTEXT");
    _controller_port = _server->bound_port("CONTROLLER");
    if (_client_port == 0 || _controller_port == 0) {
        _start_error = "a listener has no bound port";
        return;
    }
    // Serving: this broker is in the metadata it answers with (registered and
    // unfenced) and names itself the controller.
    _started = true;
    bool serving = wait_until([&] {
        auto md = metadata({});
        return md.controller_id.value() == node_id() && md.brokers.size() == 1 &&
               md.brokers[0].node_id.value() == node_id() && md.cluster_id == _cluster_id;
    });
    if (!serving) {
        _started = false;
        _start_error = "the broker did not show itself in Metadata before the deadline";
    }
}

void broker_fixture::stop() {
    if (_server) {
        _server->stop();
        _server.reset();
    }
    _started = false;
    if (!_root.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(_root, ec);
        _root.clear();
    }
}

int32_t broker_fixture::next_correlation_id() {
    std::lock_guard lock(_mu);
    return _next_correlation++;
}

void broker_fixture::keep(std::shared_ptr<bytes> frame) {
    std::lock_guard lock(_mu);
    _kept.push_back(std::move(frame));
    // Views decoded from a frame are read right after the call; the last
    // few frames are plenty.
    while (_kept.size() > 64) {
        _kept.pop_front();
    }
}

bytes broker_fixture::frame(int16_t api_key, int16_t api_version, bytes_view body,
                            int32_t correlation_id, const std::string& client_id) {
    protocol::writer w;
    w.write_int32(0);  // size, patched below
    protocol::request_header h;
    h.request_api_key = api_key;
    h.request_api_version = api_version;
    h.correlation_id = correlation_id;
    h.client_id = client_id;
    int16_t hv = protocol::request_header_version(api_key, api_version);
    if (hv < 0) {
        hv = 1;  // an api key the schemas do not know: a v1 header
    }
    h.encode(w, hv);
    w.write_raw(body);
    w.patch_int32(0, int32_t(w.buffer().size() - 4));
    return std::move(w.buffer());
}

raw_answer broker_fixture::call_raw(const bytes& wire, listener_kind l) {
    raw_answer out;
    blocking_socket s(port(l));
    if (!s.ok()) {
        ADD_FAILURE() << "cannot connect to 127.0.0.1:" << port(l);
        out.closed = true;
        return out;
    }
    if (!s.write_all(wire)) {
        out.closed = true;
        return out;
    }
    uint8_t size_buf[4];
    auto st = s.read_all(size_buf, sizeof size_buf);
    if (st == blocking_socket::read_status::timed_out) {
        ADD_FAILURE() << "no answer within " << k_deadline.count() << " s";
    }
    if (st != blocking_socket::read_status::ok) {
        out.closed = true;
        return out;
    }
    const int32_t size = int32_t(load_be32(size_buf));
    if (size < 0) {
        ADD_FAILURE() << "negative response frame size " << size;
        out.closed = true;
        return out;
    }
    out.frame.resize(size_t(size));
    st = s.read_all(out.frame.data(), out.frame.size());
    if (st != blocking_socket::read_status::ok) {
        ADD_FAILURE() << "connection "
                      << (st == blocking_socket::read_status::closed ? "closed" : "timed out")
                      << " inside a response frame";
        out.closed = true;
        out.frame.clear();
    }
    return out;
}

bool broker_fixture::check_response_header(int16_t api_key, int16_t api_version,
                                           int32_t correlation_id, bytes_view b,
                                           size_t& header_len) {
    protocol::reader r(b);
    protocol::response_header h;
    h.decode(r, protocol::response_header_version(api_key, api_version));
    if (!r.ok()) {
        ADD_FAILURE() << "response header failed to decode";
        return false;
    }
    if (h.correlation_id != correlation_id) {
        ADD_FAILURE() << "correlation id " << h.correlation_id << ", expected " << correlation_id;
        return false;
    }
    header_len = b.size() - r.remaining();
    return true;
}

int16_t broker_fixture::try_create_topic(const std::string& name, int32_t partitions,
                                         int16_t replication,
                                         const std::map<std::string, std::string>& configs) {
    protocol::create_topics_request req;
    auto& t = req.topics.emplace_back();
    t.name = name;
    t.num_partitions = partitions;
    t.replication_factor = replication;
    for (const auto& [k, v] : configs) {
        auto& c = t.configs.emplace_back();
        c.name = k;
        c.value = v;
    }
    req.timeout_ms = int32_t(std::chrono::milliseconds(k_deadline).count());
    auto resp = call<protocol::create_topics_response>(req, 7);
    if (resp.topics.size() != 1) {
        ADD_FAILURE() << "CreateTopics answered " << resp.topics.size() << " topics";
        return int16_t(error_code::unknown_server_error);
    }
    return resp.topics[0].error_code;
}

uuid broker_fixture::create_topic(const std::string& name, int32_t partitions, int16_t replication,
                                  const std::map<std::string, std::string>& configs) {
    int16_t ec = try_create_topic(name, partitions, replication, configs);
    if (ec != 0) {
        ADD_FAILURE() << "CreateTopics " << name << ": " << error_name(error_code(ec));
        return uuid{};
    }
    uuid id{};
    bool ready = wait_until([&] {
        auto md = metadata({name});
        if (md.topics.size() != 1 || md.topics[0].error_code != 0 ||
            md.topics[0].partitions.size() != size_t(partitions)) {
            return false;
        }
        for (const auto& p : md.topics[0].partitions) {
            if (p.error_code != 0 || !p.leader_id.is_valid()) {
                return false;
            }
        }
        id = md.topics[0].topic_id;
        return true;
    });
    if (!ready) {
        ADD_FAILURE() << "topic " << name << " has no leaders after " << k_deadline.count() << " s";
    }
    return id;
}

protocol::produce_response::topic_produce_response::partition_produce_response
broker_fixture::produce(const std::string& topic, int32_t partition, int records) {
    auto resp = produce_request(topic, partition, records);
    if (resp.responses.size() != 1 || resp.responses[0].partition_responses.size() != 1) {
        ADD_FAILURE() << "Produce answered an unexpected shape";
        return {};
    }
    return resp.responses[0].partition_responses[0];
}

protocol::produce_response broker_fixture::produce_request(const std::string& topic,
                                                           int32_t partition, int records,
                                                           const std::string& client_id) {
    bytes batch = make_batch(records);
    protocol::produce_request req;
    req.acks = -1;
    req.timeout_ms = int32_t(std::chrono::milliseconds(k_deadline).count());
    auto& t = req.topic_data.emplace_back();
    t.name = topic;
    auto& p = t.partition_data.emplace_back();
    p.index = partition;
    p.records = protocol::records::view(batch);
    return call<protocol::produce_response>(req, 9, listener_kind::client, client_id);
}

protocol::metadata_response broker_fixture::metadata(const std::vector<std::string>& topics) {
    protocol::metadata_request req;
    req.topics.emplace();
    for (const auto& t : topics) {
        req.topics->emplace_back().name = t;
    }
    req.allow_auto_topic_creation = false;
    return call<protocol::metadata_response>(req, 12);
}

bool broker_fixture::wait_until(const std::function<bool()>& done,
                                std::chrono::milliseconds deadline) {
    const auto until = std::chrono::steady_clock::now() + deadline;
    while (!done()) {
        if (std::chrono::steady_clock::now() >= until) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

bytes make_batch(int n, record::batch_options options) {
    std::vector<std::string> keys, values;
    for (int i = 0; i < n; ++i) {
        keys.push_back("k" + std::to_string(i));
        values.push_back("v" + std::to_string(i));
    }
    record::batch_builder b(options);
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    for (int i = 0; i < n; ++i) {
        b.add(now, as_bytes_view(keys[size_t(i)]), as_bytes_view(values[size_t(i)]));
    }
    auto built = b.build();
    if (!built) {
        ADD_FAILURE() << "batch_builder: " << built.err().message;
        return {};
    }
    return std::move(*built);
}

std::string unique_name(const std::string& prefix) {
    static std::atomic<int> next{0};
    return prefix + "-" + std::to_string(next.fetch_add(1));
}

}  // namespace samsa::server::test
