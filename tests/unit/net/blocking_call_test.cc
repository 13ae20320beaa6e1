// A blocking call (what the CLI uses) ends with an error, never a hang: a
// port nobody listens on, and a peer that accepts and never answers, both
// come back within the call's timeout.
#include "net/blocking_call.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

namespace samsa::net {
namespace {

using namespace std::chrono_literals;

// A loopback socket bound to a free port; listening when asked.
struct loopback_port {
    explicit loopback_port(bool listening) {
        fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
        socklen_t len = sizeof a;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        port = ntohs(a.sin_port);
        if (listening) {
            ::listen(fd, 4);
        }
    }
    ~loopback_port() { ::close(fd); }
    int fd = -1;
    uint16_t port = 0;
};

TEST(blocking_call, a_port_nobody_listens_on_is_an_error) {
    loopback_port bound(false);  // bound, not listening: connections are refused
    const auto start = std::chrono::steady_clock::now();
    auto r = call_blocking({"127.0.0.1", bound.port, "test", 5s, nullptr}, 18, 0, bytes{});
    EXPECT_FALSE(r);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(blocking_call, a_peer_that_never_answers_times_out) {
    loopback_port silent(true);  // the kernel accepts; nobody reads or answers
    const auto start = std::chrono::steady_clock::now();
    auto r = call_blocking({"127.0.0.1", silent.port, "test", 300ms, nullptr}, 18, 0, bytes{});
    ASSERT_FALSE(r);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
}

}  // namespace
}  // namespace samsa::net
