#include "metadata/replica_assignment.h"

#include <fmt/format.h>

#include <algorithm>

namespace samsa::metadata {

std::vector<int32_t> usable_brokers(const metadata_image& image) {
    std::vector<int32_t> out;
    for (const auto& [id, b] : image.brokers) {
        if (!b.fenced && !b.in_controlled_shutdown) {
            out.push_back(id);
        }
    }
    return out;
}

result<std::vector<std::vector<int32_t>>> assign_replicas(const std::vector<int32_t>& brokers,
                                                          int32_t first_partition, int32_t count,
                                                          int16_t replication_factor,
                                                          std::mt19937& rng) {
    if (replication_factor <= 0) {
        return error(error_code::invalid_replication_factor,
                     fmt::format("Invalid replication factor {}: the replication factor must "
                                 "be positive.",
                                 replication_factor));
    }
    if (brokers.empty()) {
        return error(error_code::invalid_replication_factor, "All brokers are currently fenced.");
    }
    if (size_t(replication_factor) > brokers.size()) {
        return error(error_code::invalid_replication_factor,
                     fmt::format("The target replication factor of {} cannot be reached because "
                                 "only {} broker(s) are registered.",
                                 replication_factor, brokers.size()));
    }
    const size_t n = brokers.size();
    const size_t start = std::uniform_int_distribution<size_t>(0, n - 1)(rng);
    std::vector<std::vector<int32_t>> out;
    out.reserve(size_t(count));
    for (int32_t i = 0; i < count; ++i) {
        size_t p = size_t(first_partition) + size_t(i);
        std::vector<int32_t> replicas;
        for (int16_t j = 0; j < replication_factor; ++j) {
            replicas.push_back(brokers[(start + p + size_t(j)) % n]);
        }
        out.push_back(std::move(replicas));
    }
    return out;
}

status validate_manual_assignment(const metadata_image& image, const std::vector<int32_t>& replicas,
                                  std::optional<size_t> replication_factor) {
    if (replicas.empty()) {
        return error(error_code::invalid_replica_assignment,
                     "The manual partition assignment includes an empty replica list.");
    }
    std::vector<int32_t> sorted = replicas;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) {
        if (!image.brokers.count(sorted[i])) {
            return error(error_code::invalid_replica_assignment,
                         fmt::format("The manual partition assignment includes broker {}, but no "
                                     "such broker is registered.",
                                     sorted[i]));
        }
        if (i > 0 && sorted[i] == sorted[i - 1]) {
            return error(error_code::invalid_replica_assignment,
                         fmt::format("The manual partition assignment includes the broker {} more "
                                     "than once.",
                                     sorted[i]));
        }
    }
    if (replication_factor && replicas.size() != *replication_factor) {
        return error(error_code::invalid_replica_assignment,
                     fmt::format("The manual partition assignment includes a partition with {} "
                                 "replica(s), but this is not consistent with previous partitions, "
                                 "which have {} replica(s).",
                                 replicas.size(), *replication_factor));
    }
    return {};
}

std::vector<int32_t> initial_isr(const metadata_image& image,
                                 const std::vector<int32_t>& replicas) {
    std::vector<int32_t> isr;
    for (int32_t r : replicas) {
        auto it = image.brokers.find(r);
        if (it != image.brokers.end() && !it->second.fenced && !it->second.in_controlled_shutdown) {
            isr.push_back(r);
        }
    }
    return isr;
}

}  // namespace samsa::metadata
