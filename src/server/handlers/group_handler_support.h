#pragma once
// What the group API handlers share: how a request's origin is described to
// the group coordinator (client id, and the client host as Kafka prints an
// InetAddress: "/127.0.0.1").
#include <string>

#include "coordinator/group/group_manager.h"
#include "server/request_context.h"

namespace samsa::server::handlers {

inline std::string client_host_of(const std::string& peer) {
    // peer is "host:port" or "[v6]:port".
    std::string host = peer.substr(0, peer.rfind(':'));
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    return "/" + host;
}

inline coordinator::request_origin origin_of(const request_context& ctx) {
    coordinator::request_origin o;
    o.client_id = ctx.header.client_id.value_or("");
    o.client_host = client_host_of(ctx.peer);
    o.api_version = ctx.header.api_version;
    return o;
}

}  // namespace samsa::server::handlers
