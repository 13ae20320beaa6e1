#pragma once
// The broker's HTTP listener (`metrics.listener`): /metrics, health checks
// and the admin API, on civetweb's own threads, away from the reactors.
//
//   http_listener h("127.0.0.1", 9644);
//   h.route("/metrics", [](const http_request&) { return http_response{...}; });
//   h.route("POST", "/v1/topics", create_topic);
//   if (auto st = h.start(); !st) { ... }
//   ...
//   h.stop();
//
// Thread-safety: route() before start(); a route runs on a civetweb worker
// thread, several at once, so it may only touch what is safe from any
// thread. stop() waits for running routes to finish.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"

struct mg_context;
struct mg_connection;

namespace samsa::server::http {

struct http_request {
    std::string method;
    std::string path;
    std::string query;          // after '?', undecoded
    std::string authorization;  // the Authorization header, if sent
    std::string content_type;
    std::string remote_addr;  // the caller's address
    std::string body;         // at most max_body_bytes
};

struct http_response {
    int status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  // e.g. WWW-Authenticate
};

using http_route = std::function<http_response(const http_request&)>;

class http_listener {
  public:
    http_listener(std::string host, uint16_t port);
    ~http_listener();
    http_listener(const http_listener&) = delete;
    http_listener& operator=(const http_listener&) = delete;

    // The admin API's request bodies are small JSON documents.
    static constexpr size_t max_body_bytes = 64 * 1024;

    // An exact path, for GET (and HEAD).
    void route(std::string path, http_route r) { route("GET", std::move(path), std::move(r)); }
    void route(std::string method, std::string path, http_route r);
    // Every path under `prefix` (which ends in '/') no exact route takes.
    void route_prefix(std::string prefix, http_route r) {
        route_prefix("GET", std::move(prefix), std::move(r));
    }
    void route_prefix(std::string method, std::string prefix, http_route r);
    // Binds and starts serving; an error names the address.
    status start();
    void stop();

  private:
    static int on_request(mg_connection* conn, void* self);
    http_response answer(const http_request& req) const;

    std::string _host;
    uint16_t _port;
    struct prefix_route {
        std::string method;
        std::string prefix;
        http_route route;
    };
    // By path, then method.
    std::map<std::string, std::map<std::string, http_route>> _routes;
    std::vector<prefix_route> _prefix_routes;
    mg_context* _ctx = nullptr;
};

}  // namespace samsa::server::http
