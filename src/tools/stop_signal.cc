#include "tools/stop_signal.h"

#include <unistd.h>
#include <atomic>
#include <csignal>
#include <cstring>

namespace samsa::tools {

namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int sig) {
    if (g_stop.exchange(true)) {
        // Second signal: the default action (terminate).
        std::signal(sig, SIG_DFL);
        ::raise(sig);
    }
}

}  // namespace

void install_stop_handlers() {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    // No SA_RESTART: a blocking read of stdin returns, so `produce` notices.
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

bool stop_requested() {
    return g_stop.load(std::memory_order_relaxed);
}

}  // namespace samsa::tools
