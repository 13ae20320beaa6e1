#pragma once
// What the group API handlers share: how a request's origin is described to
// the group coordinator (client id, and the client host as Kafka prints an
// InetAddress: "/127.0.0.1").
#include <string>

#include "coordinator/group/group_manager.h"
#include "server/authorization.h"
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

// A group's members need READ on it (KIP-11): join, sync, heartbeat, leave,
// commit; describing it needs DESCRIBE, deleting it DELETE.
inline bool may_use_group(const request_context& ctx, const std::string& group_id,
                          acl::operation op = acl::operation::read) {
    return authorized(ctx, op, acl::resource_type::group, group_id);
}

inline coordinator::request_origin origin_of(const request_context& ctx) {
    coordinator::request_origin o;
    o.client_id = ctx.header.client_id.value_or("");
    o.client_host = client_host_of(ctx.peer);
    o.api_version = ctx.header.api_version;
    return o;
}

}  // namespace samsa::server::handlers
