#include "tools/topic_id_lookup.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "protocol/generated/api_table.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"
#include "protocol/generated/request_header.h"
#include "protocol/generated/response_header.h"

namespace samsa::tools {

namespace {

using steady = std::chrono::steady_clock;
constexpr int16_t k_metadata_version = 12;
constexpr int32_t k_max_response_bytes = 64 << 20;

class fd_guard {
  public:
    explicit fd_guard(int fd) : _fd(fd) {}
    ~fd_guard() {
        if (_fd >= 0) {
            ::close(_fd);
        }
    }
    fd_guard(const fd_guard&) = delete;
    fd_guard& operator=(const fd_guard&) = delete;
    int get() const { return _fd; }

  private:
    int _fd;
};

int remaining_ms(steady::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now());
    return left.count() > 0 ? int(left.count()) : 0;
}

bool wait_for(int fd, short events, steady::time_point deadline) {
    pollfd p{fd, events, 0};
    for (;;) {
        int n = ::poll(&p, 1, remaining_ms(deadline));
        if (n > 0) {
            return (p.revents & (events | POLLHUP | POLLERR)) != 0;
        }
        if (n == 0 || errno != EINTR) {
            return false;
        }
    }
}

// A non-blocking connection to host:port, established before the deadline.
std::optional<int> connect_to(const std::string& host, const std::string& port,
                              steady::time_point deadline) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0) {
        return std::nullopt;
    }
    std::optional<int> out;
    for (addrinfo* ai = res; ai != nullptr && !out; ai = ai->ai_next) {
        int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            continue;
        }
        int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS && wait_for(fd, POLLOUT, deadline)) {
            int err = 0;
            socklen_t len = sizeof err;
            ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
            rc = err == 0 ? 0 : -1;
        }
        if (rc == 0) {
            out = fd;
        } else {
            ::close(fd);
        }
    }
    ::freeaddrinfo(res);
    return out;
}

bool send_all(int fd, const uint8_t* p, size_t n, steady::time_point deadline) {
    while (n > 0) {
        ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= size_t(w);
        } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (!wait_for(fd, POLLOUT, deadline)) {
                return false;
            }
        } else {
            return false;
        }
    }
    return true;
}

bool recv_all(int fd, uint8_t* p, size_t n, steady::time_point deadline) {
    while (n > 0) {
        ssize_t r = ::recv(fd, p, n, 0);
        if (r > 0) {
            p += r;
            n -= size_t(r);
        } else if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (!wait_for(fd, POLLIN, deadline)) {
                return false;
            }
        } else {
            return false;
        }
    }
    return true;
}

std::optional<protocol::metadata_response> fetch_metadata(int fd,
                                                          const std::vector<std::string>& topics,
                                                          steady::time_point deadline) {
    protocol::writer w;
    w.write_int32(0);  // frame size, patched below
    protocol::request_header header;
    header.request_api_key = protocol::metadata_request::api_key;
    header.request_api_version = k_metadata_version;
    header.correlation_id = 1;
    header.client_id = "samsa-topics";
    header.encode(w, protocol::request_header_version(protocol::metadata_request::api_key,
                                                      k_metadata_version));
    protocol::metadata_request req;
    req.allow_auto_topic_creation = false;
    req.topics.emplace();
    for (const auto& t : topics) {
        protocol::metadata_request::metadata_request_topic rt;
        rt.name = t;
        req.topics->push_back(std::move(rt));
    }
    req.encode(w, k_metadata_version);
    w.patch_int32(0, int32_t(w.buffer().size() - 4));
    if (!send_all(fd, w.buffer().data(), w.buffer().size(), deadline)) {
        return std::nullopt;
    }

    uint8_t size_bytes[4];
    if (!recv_all(fd, size_bytes, 4, deadline)) {
        return std::nullopt;
    }
    int32_t size = int32_t(uint32_t(size_bytes[0]) << 24 | uint32_t(size_bytes[1]) << 16 |
                           uint32_t(size_bytes[2]) << 8 | uint32_t(size_bytes[3]));
    if (size <= 0 || size > k_max_response_bytes) {
        return std::nullopt;
    }
    bytes body(size_t(size), 0);
    if (!recv_all(fd, body.data(), body.size(), deadline)) {
        return std::nullopt;
    }
    protocol::reader r(bytes_view(body.data(), body.size()));
    protocol::response_header rh;
    rh.decode(r, protocol::response_header_version(protocol::metadata_request::api_key,
                                                   k_metadata_version));
    protocol::metadata_response resp;
    resp.decode(r, k_metadata_version);
    if (!r.ok() || rh.correlation_id != 1) {
        return std::nullopt;
    }
    return resp;
}

}  // namespace

std::map<std::string, std::string> lookup_topic_ids(const std::string& bootstrap_servers,
                                                    const std::vector<std::string>& topics,
                                                    std::chrono::milliseconds timeout) {
    std::map<std::string, std::string> ids;
    if (topics.empty()) {
        return ids;
    }
    auto deadline = steady::now() + timeout;
    size_t start = 0;
    while (start <= bootstrap_servers.size()) {
        size_t comma = bootstrap_servers.find(',', start);
        std::string server = bootstrap_servers.substr(
            start, comma == std::string::npos ? std::string::npos : comma - start);
        start = comma == std::string::npos ? bootstrap_servers.size() + 1 : comma + 1;
        // "PLAINTEXT://host:port" is accepted by librdkafka; drop the scheme.
        if (auto scheme = server.find("://"); scheme != std::string::npos) {
            server.erase(0, scheme + 3);
        }
        auto colon = server.rfind(':');
        if (colon == std::string::npos) {
            continue;
        }
        std::string host = server.substr(0, colon);
        if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
            host = host.substr(1, host.size() - 2);
        }
        auto fd = connect_to(host, server.substr(colon + 1), deadline);
        if (!fd) {
            continue;
        }
        fd_guard guard(*fd);
        auto resp = fetch_metadata(guard.get(), topics, deadline);
        if (!resp) {
            continue;
        }
        for (const auto& t : resp->topics) {
            if (t.error_code == 0 && t.name && !t.topic_id.is_zero()) {
                ids[*t.name] = t.topic_id.to_string();
            }
        }
        break;
    }
    return ids;
}

}  // namespace samsa::tools
