#include "tools/topic_id_lookup.h"

#include <optional>

#include "net/blocking_call.h"
#include "protocol/generated/metadata_request.h"
#include "protocol/generated/metadata_response.h"

namespace samsa::tools {

namespace {

using steady = std::chrono::steady_clock;
constexpr int16_t k_metadata_version = 12;

}  // namespace

std::map<std::string, std::string> lookup_topic_ids(
    const std::string& bootstrap_servers, const std::vector<std::string>& topics,
    std::chrono::milliseconds timeout, std::shared_ptr<const security::client_security> security) {
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
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now());
        int port = 0;
        try {
            port = std::stoi(server.substr(colon + 1));
        } catch (const std::exception&) {
            continue;
        }
        if (left.count() <= 0 || port <= 0 || port > 65535) {
            continue;
        }
        protocol::metadata_request req;
        req.allow_auto_topic_creation = false;
        req.topics.emplace();
        for (const auto& t : topics) {
            req.topics->emplace_back().name = t;
        }
        auto resp = net::call_blocking<protocol::metadata_response>(
            {host, uint16_t(port), "samsa-topics", left, security}, req, k_metadata_version);
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
