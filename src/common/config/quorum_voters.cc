#include "common/config/quorum_voters.h"

#include <fmt/format.h>

#include <charconv>
#include <set>

#include "common/config/listener.h"

namespace samsa::config {

result<std::vector<quorum_voter>> parse_quorum_voters(const list_value& entries) {
    std::vector<quorum_voter> voters;
    std::set<int32_t> ids;
    for (const auto& e : entries) {
        size_t at = e.find('@');
        if (at == std::string::npos || e.find('@', at + 1) != std::string::npos) {
            return error{
                error_code::invalid_config,
                fmt::format("Invalid configuration value for controller.quorum.voters: "
                            "'{}'. Each entry should be in the form `{{id}}@{{host}}:{{port}}`.",
                            e)};
        }
        std::string_view id_text = std::string_view(e).substr(0, at);
        int32_t id = -1;
        auto [p, ec] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
        if (id_text.empty() || ec != std::errc() || p != id_text.data() + id_text.size() ||
            id < 0) {
            return error{error_code::invalid_config,
                         fmt::format("Failed to parse voter ID as a non-negative integer from '{}' "
                                     "in controller.quorum.voters",
                                     id_text)};
        }
        // Reuse the listener syntax for "host:port" (brackets for IPv6).
        auto ep = parse_endpoint(fmt::format("V://{}", std::string_view(e).substr(at + 1)));
        if (!ep) {
            return error{error_code::invalid_config,
                         fmt::format("Failed to parse host and port from '{}' in "
                                     "controller.quorum.voters",
                                     std::string_view(e).substr(at + 1))};
        }
        if (ep->host.empty()) {
            return error{error_code::invalid_config,
                         fmt::format("Missing host in controller.quorum.voters entry '{}'", e)};
        }
        if (!ids.insert(id).second) {
            return error{error_code::invalid_config,
                         fmt::format("Voter id {} appears twice in controller.quorum.voters", id)};
        }
        voters.push_back(quorum_voter{id, ep->host, ep->port});
    }
    return voters;
}

}  // namespace samsa::config
