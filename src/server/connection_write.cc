// The connection's write side: responses go out in request order, each as
// its header and body in one gather write, and a Fetch's file ranges by
// sendfile(2) on plaintext (zero copy) or read and written through TLS.
#include <sys/sendfile.h>
#include <unistd.h>

#include <asio/redirect_error.hpp>
#include <asio/use_awaitable.hpp>
#include <cerrno>
#include <cstring>

#include "common/logging/loggers.h"
#include "protocol/generated/api_table.h"
#include "server/connection.h"

namespace samsa::server {

asio::awaitable<void> connection::write_loop() {
    auto self = shared_from_this();
    for (;;) {
        while (!_closed && (_queue.empty() || !_queue.front()->ready)) {
            std::error_code ec;
            _response_ready.expires_at(asio::steady_timer::time_point::max());
            co_await _response_ready.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
        if (_closed) {
            co_return;
        }
        auto slot = _queue.front();
        _queue.pop_front();
        _queue_drained.cancel();
        const auto send_started = std::chrono::steady_clock::now();
        switch (slot->result.what) {
            case handler_result::kind::no_response:
                record_request_metrics(*slot, send_started);
                continue;
            case handler_result::kind::close:
                record_request_metrics(*slot, send_started);
                close(fmt::format("{} api_key={} api_version={} correlation_id={}",
                                  slot->result.close_reason, slot->header.api_key,
                                  slot->header.api_version, slot->header.correlation_id));
                co_return;
            case handler_result::kind::respond:
                break;
        }
        if (!co_await send_response(*slot)) {
            co_return;
        }
        record_request_metrics(*slot, send_started);
        _last_activity = std::chrono::steady_clock::now();
        if (_sasl && _sasl->close_after_response) {
            close("SASL authentication failed");
            co_return;
        }
    }
}

asio::awaitable<bool> connection::send_response(response_slot& slot) {
    const auto& body = slot.result.body;
    const int16_t hv =
        protocol::response_header_version(slot.header.api_key, slot.header.api_version);
    uint8_t prefix[9];
    size_t prefix_len = slot.raw ? 4 : hv >= 1 ? 9 : 8;
    uint64_t frame_size = (prefix_len - 4) + body.size();
    if (frame_size > uint64_t(INT32_MAX)) {
        close("response larger than 2 GiB");
        co_return false;
    }
    store_be32(prefix, uint32_t(frame_size));
    store_be32(prefix + 4, uint32_t(slot.header.correlation_id));
    prefix[8] = 0;  // response header v1: no tagged fields

    std::error_code ec;
    const auto& buf = body.buffer();
    const auto& splices = body.splices();
    size_t pos = 0;
    bool first = true;
    for (size_t i = 0; i <= splices.size(); ++i) {
        size_t until = i < splices.size() ? splices[i].position : buf.size();
        std::array<asio::const_buffer, 2> bufs{asio::buffer(prefix, first ? prefix_len : 0),
                                               asio::buffer(buf.data() + pos, until - pos)};
        first = false;
        ec = co_await write_all(bufs);
        if (ec) {
            close(_closed ? "" : "write failed: " + ec.message());
            co_return false;
        }
        pos = until;
        if (i < splices.size() && !co_await send_file_range(splices[i].file)) {
            co_return false;
        }
    }
    co_return true;
}

asio::awaitable<bool> connection::send_file_range(const protocol::file_range& f) {
    if (_tls) {
        // TLS encrypts in user space: read the range in chunks and write them
        // through the stream (the one copy encryption needs anyway).
        constexpr size_t chunk = 256 * 1024;
        std::unique_ptr<uint8_t[]> buf(new uint8_t[std::min(chunk, std::max<size_t>(1, f.length))]);
        size_t done = 0;
        while (done < f.length) {
            size_t want = std::min(chunk, f.length - done);
            ssize_t n = ::pread(f.fd, buf.get(), want, off_t(f.offset + done));
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                close(n == 0 ? "file range shorter than announced"
                             : std::string("read of a fetched segment failed: ") +
                                   std::strerror(errno));
                co_return false;
            }
            std::array<asio::const_buffer, 2> bufs{asio::buffer(buf.get(), size_t(n)),
                                                   asio::const_buffer()};
            if (auto ec = co_await write_all(bufs); ec) {
                close(_closed ? "" : "write failed: " + ec.message());
                co_return false;
            }
            done += size_t(n);
        }
        co_return true;
    }
    // Zero copy (docs/architecture.md, "Fetch"): the kernel moves segment bytes to the socket.
    _socket.non_blocking(true);
    off_t offset = off_t(f.offset);
    size_t left = f.length;
    while (left > 0) {
        ssize_t n = ::sendfile(_socket.native_handle(), f.fd, &offset, left);
        if (n > 0) {
            left -= size_t(n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            std::error_code ec;
            co_await _socket.async_wait(asio::ip::tcp::socket::wait_write,
                                        asio::redirect_error(asio::use_awaitable, ec));
            if (ec) {
                close(_closed ? "" : "write failed: " + ec.message());
                co_return false;
            }
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        // n == 0: the file is shorter than the range (truncated under us).
        close(n == 0 ? "file range shorter than announced"
                     : std::string("sendfile failed: ") + std::strerror(errno));
        co_return false;
    }
    co_return true;
}

}  // namespace samsa::server
