#include "tools/replay_connection.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <semaphore>
#include <thread>

#include "protocol/generated/api_table.h"
#include "protocol/generated/produce_response.h"
#include "protocol/generated/response_header.h"
#include "protocol/message_codec.h"
#include "protocol/reader.h"

namespace samsa::tools {

namespace {

using replay_clock = std::chrono::steady_clock;

// An answer frame larger than this is not a Produce answer: the stream is
// out of step (or not Kafka), and reading on would only allocate.
constexpr uint32_t max_answer_bytes = 64u << 20;

int64_t now_us() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               replay_clock::now().time_since_epoch())
        .count();
}

result<int> connect_to(const std::string& host, uint16_t port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
        return error(error_code::network_exception,
                     "cannot resolve " + host + ": " + ::gai_strerror(rc));
    }
    std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);
    std::string why = "no address";
    for (addrinfo* a = found; a; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            why = std::strerror(errno);
            continue;
        }
        if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
            const int one = 1;
            ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            // Reads wake up now and then to see whether to stop.
            timeval tv{1, 0};
            ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            return fd;
        }
        why = std::strerror(errno);
        ::close(fd);
    }
    return error(error_code::network_exception,
                 "cannot connect to " + host + ":" + service + ": " + why);
}

// The connection's shared state between its sender and its reader.
class replay_session {
  public:
    replay_session(const replay_plan& plan, int fd, const std::atomic<bool>& stop,
                   std::atomic<uint64_t>& sent_bytes)
        : _plan(plan),
          _fd(fd),
          _stop(stop),
          _sent_bytes(sent_bytes),
          _frames(plan.frames),
          _window(plan.in_flight),
          _slots(size_t(plan.in_flight) + 1),
          _sent_at(std::make_unique<std::atomic<int64_t>[]>(_slots)) {}

    replay_outcome run() {
        std::thread sender([this] { send_all(); });
        read_all();
        if (_out.answered < _plan.requests) {
            // The sender may wait for a slot or a socket that no longer moves.
            _broken.store(true);
            ::shutdown(_fd, SHUT_RDWR);
            _window.release(_plan.in_flight);
        }
        sender.join();
        std::lock_guard lock(_mutex);
        if (_out.broken.empty() && !_send_error.empty()) {
            _out.broken = _send_error;
        }
        return std::move(_out);
    }

  private:
    bool stopping() const { return _stop.load() || _broken.load(); }

    void send_all() {
        for (uint64_t i = 0; i < _plan.requests; ++i) {
            while (!_window.try_acquire_for(std::chrono::milliseconds(200))) {
                if (stopping()) {
                    return;
                }
            }
            if (stopping()) {
                return;
            }
            bytes& frame = _frames[i % _frames.size()];
            store_be32(frame.data() + correlation_id_offset, uint32_t(i));
            _sent_at[i % _slots].store(now_us(), std::memory_order_relaxed);
            if (!write_all(frame)) {
                return;
            }
            _sent_bytes.fetch_add(frame.size(), std::memory_order_relaxed);
        }
    }

    bool write_all(bytes_view frame) {
        size_t done = 0;
        while (done < frame.size()) {
            const ssize_t n = ::send(_fd, frame.data() + done, frame.size() - done, MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                std::lock_guard lock(_mutex);
                _send_error = std::string("write failed: ") + std::strerror(errno);
                _broken.store(true);
                return false;
            }
            done += size_t(n);
        }
        return true;
    }

    // Reads exactly `n` bytes into `into`; false when stopping or broken.
    bool read_exact(uint8_t* into, size_t n) {
        size_t done = 0;
        while (done < n) {
            const ssize_t got = ::recv(_fd, into + done, n - done, 0);
            if (got > 0) {
                done += size_t(got);
                continue;
            }
            if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
                if (stopping()) {
                    return false;
                }
                continue;
            }
            _out.broken = got == 0 ? "the broker closed the connection"
                                   : std::string("read failed: ") + std::strerror(errno);
            return false;
        }
        return true;
    }

    void read_all() {
        const int16_t header_version = protocol::response_header_version(
            protocol::produce_response::api_key, _plan.api_version);
        bytes answer;
        for (uint64_t j = 0; j < _plan.requests; ++j) {
            uint8_t size_prefix[4];
            if (!read_exact(size_prefix, 4)) {
                return;
            }
            const uint32_t size = load_be32(size_prefix);
            if (size < 4 || size > max_answer_bytes) {
                _out.broken = "an answer of " + std::to_string(size) + " bytes";
                return;
            }
            answer.resize(size);
            if (!read_exact(answer.data(), size)) {
                return;
            }
            const int64_t latency = now_us() - _sent_at[j % _slots].load(std::memory_order_relaxed);
            protocol::reader r(answer);
            protocol::response_header h;
            h.decode(r, header_version);
            if (!r.ok() || h.correlation_id != int32_t(uint32_t(j))) {
                _out.broken = "an answer out of order (correlation id " +
                              std::to_string(h.correlation_id) + ", expected " + std::to_string(j) +
                              ")";
                return;
            }
            auto decoded = protocol::decode_message<protocol::produce_response>(
                bytes_view(r.position(), r.remaining()), _plan.api_version);
            if (!decoded) {
                _out.broken = "a Produce answer that does not decode";
                return;
            }
            int16_t code = 0;
            decoded->for_each_error_code(_plan.api_version,
                                         [&](int16_t ec) { code = code == 0 ? ec : code; });
            if (code != 0 && _out.failed++ == 0) {
                _out.first_error = code;
            }
            ++_out.answered;
            _out.latencies.record(uint64_t(std::max<int64_t>(latency, 0)));
            _window.release();
        }
    }

    const replay_plan& _plan;
    const int _fd;
    const std::atomic<bool>& _stop;
    std::atomic<uint64_t>& _sent_bytes;
    std::vector<bytes> _frames;  // this connection's copies: their ids change
    std::counting_semaphore<> _window;
    const size_t _slots;
    std::unique_ptr<std::atomic<int64_t>[]> _sent_at;
    std::atomic<bool> _broken{false};
    std::mutex _mutex;
    std::string _send_error;
    replay_outcome _out;
};

}  // namespace

replay_outcome run_replay_connection(const replay_plan& plan, const std::atomic<bool>& stop,
                                     std::atomic<uint64_t>& sent_bytes) {
    auto fd = connect_to(plan.host, plan.port);
    if (!fd) {
        replay_outcome out;
        out.broken = fd.err().message;
        return out;
    }
    replay_session session(plan, *fd, stop, sent_bytes);
    replay_outcome out = session.run();
    ::close(*fd);
    return out;
}

}  // namespace samsa::tools
