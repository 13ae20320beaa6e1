#include "tools/producer_state_calls.h"

#include <algorithm>

namespace samsa::tools::txn_producers {

result<void> describe_producers(const cluster& c, const broker_info& b,
                                const std::vector<topic_partition>& parts,
                                std::map<topic_partition, partition_producers>& out) {
    for (size_t start = 0; start < parts.size(); start += max_batch) {
        protocol::describe_producers_request req;
        const size_t end = std::min(parts.size(), start + max_batch);
        for (size_t i = start; i < end; ++i) {
            if (req.topics.empty() || req.topics.back().name != parts[i].topic) {
                req.topics.emplace_back().name = parts[i].topic;
            }
            req.topics.back().partition_indexes.push_back(parts[i].partition);
            out[parts[i]].error = to_wire(error_code::unknown_server_error);
        }
        auto resp = c.call<protocol::describe_producers_response>(b, req, 0);
        if (!resp) {
            return resp.err();
        }
        for (auto& t : resp->topics) {
            for (auto& p : t.partitions) {
                auto it = out.find({t.name, p.partition_index});
                if (it != out.end()) {
                    it->second = {p.error_code, std::move(p.active_producers)};
                }
            }
        }
    }
    return {};
}

std::string optional_value(int64_t v) {
    return v < 0 ? "None" : std::to_string(v);
}

}  // namespace samsa::tools::txn_producers
