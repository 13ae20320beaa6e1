#include "server/http/health.h"

#include <fmt/format.h>

#include "server/quorum/broker_lifecycle.h"
#include "server/quorum/metadata_quorum.h"

namespace samsa::server::http {

namespace {
constexpr const char* k_json = "application/json";
}

http_response live_check() {
    return {200, k_json, "{\"live\":true}\n", {}};
}

http_response ready_check(const observed_node& node) {
    bool ready = true;
    std::string parts;
    if (node.is_broker) {
        const bool unfenced = node.lifecycle && node.lifecycle->unfenced();
        ready = ready && unfenced;
        parts += fmt::format(",\"broker\":{{\"unfenced\":{}}}", unfenced);
    }
    if (node.is_controller) {
        const auto le = node.quorum ? node.quorum->leader() : raft::leader_and_epoch{};
        const bool known = node.quorum && le.leader != raft::no_node;
        ready = ready && known;
        parts += fmt::format(",\"controller\":{{\"leader\":{},\"epoch\":{}}}", le.leader.value(),
                             le.epoch.value());
    }
    return {ready ? 200 : 503, k_json, fmt::format("{{\"ready\":{}{}}}\n", ready, parts), {}};
}

}  // namespace samsa::server::http
