#include "server/http/http_listener.h"
#include "common/logging/loggers.h"

#include <civetweb.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <exception>
#include <mutex>
#include <optional>

namespace samsa::server::http {

namespace {

std::string_view reason(int status) {
    switch (status) {
        case 200:
            return "OK";
        case 201:
            return "Created";
        case 400:
            return "Bad Request";
        case 401:
            return "Unauthorized";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 409:
            return "Conflict";
        case 413:
            return "Content Too Large";
        case 415:
            return "Unsupported Media Type";
        case 504:
            return "Gateway Timeout";
        case 503:
            return "Service Unavailable";
        default:
            return "Internal Server Error";
    }
}

int log_message(const mg_connection*, const char* message) {
    logging::metrics().warn("event=http_error message=\"{}\"", message);
    return 1;  // logged: civetweb writes nothing itself
}

}  // namespace

http_listener::http_listener(std::string host, uint16_t port)
    : _host(std::move(host)), _port(port) {}

http_listener::~http_listener() {
    stop();
}

void http_listener::route(std::string method, std::string path, http_route r) {
    _routes[std::move(path)][std::move(method)] = std::move(r);
}

void http_listener::route_prefix(std::string method, std::string prefix, http_route r) {
    _prefix_routes.push_back({std::move(method), std::move(prefix), std::move(r)});
}

status http_listener::start() {
    static std::once_flag init;
    std::call_once(init, [] { mg_init_library(0); });
    const std::string ports = _host.find(':') != std::string::npos
                                  ? fmt::format("[{}]:{}", _host, _port)
                                  : fmt::format("{}:{}", _host, _port);
    // A few workers: scrapes and admin calls are rare and short. No
    // document root: nothing is served from the file system.
    const char* options[] = {"listening_ports",
                             ports.c_str(),
                             "num_threads",
                             "4",
                             "request_timeout_ms",
                             "10000",
                             "enable_keep_alive",
                             "yes",
                             "keep_alive_timeout_ms",
                             "30000",
                             nullptr};
    mg_callbacks callbacks{};
    callbacks.log_message = &log_message;
    std::array<char, 256> text{};
    unsigned code = 0;
    mg_error_data err{&code, text.data(), text.size()};
    mg_init_data init_data{&callbacks, this, options};
    _ctx = mg_start2(&init_data, &err);
    if (!_ctx) {
        return error(error_code::invalid_config,
                     fmt::format("metrics.listener {}: cannot listen: {}", ports, text.data()));
    }
    mg_set_request_handler(_ctx, "/", &http_listener::on_request, this);
    return {};
}

void http_listener::stop() {
    if (_ctx) {
        mg_stop(_ctx);
        _ctx = nullptr;
    }
}

http_response http_listener::answer(const http_request& req) const {
    // HEAD is GET without the body.
    const std::string method = req.method == "HEAD" ? "GET" : req.method;
    const http_route* route = nullptr;
    std::string allowed;  // the methods of the path, when not `method`
    auto consider = [&](const std::string& m, const http_route& r) {
        if (m == method) {
            route = &r;
        } else if (allowed.find(m) == std::string::npos) {
            allowed += (allowed.empty() ? "" : ", ") + m;
        }
    };
    if (auto it = _routes.find(req.path); it != _routes.end()) {
        for (const auto& [m, r] : it->second) {
            consider(m, r);
        }
    } else {
        for (const auto& p : _prefix_routes) {
            if (!route && req.path.size() > p.prefix.size() &&
                req.path.compare(0, p.prefix.size(), p.prefix) == 0) {
                consider(p.method, p.route);
            }
        }
    }
    if (!route && !allowed.empty()) {
        return {405,
                "text/plain; charset=utf-8",
                fmt::format("{} is not served on {}\n", req.method, req.path),
                {{"Allow", allowed}}};
    }
    if (!route) {
        return {404, "text/plain; charset=utf-8", "not found\n", {}};
    }
    try {
        return (*route)(req);
    } catch (const std::exception& e) {
        logging::metrics().error("event=http_route_failed path={} what=\"{}\"", req.path, e.what());
        return {500, "text/plain; charset=utf-8", "internal error\n", {}};
    }
}

namespace {

// The body, up to `limit` bytes; nullopt when it is larger or not all there.
std::optional<std::string> read_body(mg_connection* conn, const mg_request_info* info,
                                     size_t limit) {
    if (info->content_length <= 0) {
        return std::string();
    }
    if (size_t(info->content_length) > limit) {
        return std::nullopt;
    }
    std::string body(size_t(info->content_length), '\0');
    size_t got = 0;
    while (got < body.size()) {
        const int n = mg_read(conn, body.data() + got, body.size() - got);
        if (n <= 0) {
            return std::nullopt;
        }
        got += size_t(n);
    }
    return body;
}

}  // namespace

int http_listener::on_request(mg_connection* conn, void* self) {
    const mg_request_info* info = mg_get_request_info(conn);
    http_request req;
    req.method = info->request_method ? info->request_method : "";
    req.path = info->local_uri ? info->local_uri : "";
    req.query = info->query_string ? info->query_string : "";
    req.remote_addr = info->remote_addr;
    if (const char* a = mg_get_header(conn, "Authorization")) {
        req.authorization = a;
    }
    if (const char* t = mg_get_header(conn, "Content-Type")) {
        req.content_type = t;
    }
    http_response resp;
    if (auto body = read_body(conn, info, max_body_bytes)) {
        req.body = std::move(*body);
        resp = static_cast<http_listener*>(self)->answer(req);
    } else {
        resp = {413,
                "text/plain; charset=utf-8",
                fmt::format("a request body holds at most {} bytes\n", max_body_bytes),
                {}};
    }
    std::string extra;
    for (const auto& [name, value] : resp.headers) {
        extra += fmt::format("{}: {}\r\n", name, value);
    }
    // A body not read (too large) cannot be skipped on a kept-alive
    // connection: close it.
    mg_printf(conn,
              "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
              "Cache-Control: no-store\r\n%s%s\r\n",
              resp.status, std::string(reason(resp.status)).c_str(), resp.content_type.c_str(),
              resp.body.size(), extra.c_str(), resp.status == 413 ? "Connection: close\r\n" : "");
    if (req.method != "HEAD") {
        mg_write(conn, resp.body.data(), resp.body.size());
    }
    return resp.status;
}

}  // namespace samsa::server::http
