#include "server/http/http_listener.h"
#include "common/logging/loggers.h"

#include <civetweb.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <exception>
#include <mutex>

namespace samsa::server::http {

namespace {

std::string_view reason(int status) {
    switch (status) {
        case 200:
            return "OK";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
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

void http_listener::route(std::string path, http_route r) {
    _routes[std::move(path)] = std::move(r);
}

void http_listener::route_prefix(std::string prefix, http_route r) {
    _prefix_routes.emplace_back(std::move(prefix), std::move(r));
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
    if (req.method != "GET" && req.method != "HEAD") {
        return {405, "text/plain; charset=utf-8", "only GET and HEAD are served\n"};
    }
    const http_route* route = nullptr;
    if (auto it = _routes.find(req.path); it != _routes.end()) {
        route = &it->second;
    } else {
        for (const auto& [prefix, r] : _prefix_routes) {
            if (req.path.size() > prefix.size() &&
                req.path.compare(0, prefix.size(), prefix) == 0) {
                route = &r;
                break;
            }
        }
    }
    if (!route) {
        return {404, "text/plain; charset=utf-8", "not found\n"};
    }
    try {
        return (*route)(req);
    } catch (const std::exception& e) {
        logging::metrics().error("event=http_route_failed path={} what=\"{}\"", req.path, e.what());
        return {500, "text/plain; charset=utf-8", "internal error\n"};
    }
}

int http_listener::on_request(mg_connection* conn, void* self) {
    const mg_request_info* info = mg_get_request_info(conn);
    http_request req;
    req.method = info->request_method ? info->request_method : "";
    req.path = info->local_uri ? info->local_uri : "";
    req.query = info->query_string ? info->query_string : "";
    const http_response resp = static_cast<http_listener*>(self)->answer(req);
    mg_printf(conn,
              "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
              "Cache-Control: no-store\r\n\r\n",
              resp.status, std::string(reason(resp.status)).c_str(), resp.content_type.c_str(),
              resp.body.size());
    if (req.method != "HEAD") {
        mg_write(conn, resp.body.data(), resp.body.size());
    }
    return resp.status;
}

}  // namespace samsa::server::http
