#include "metadata/replica_assignment.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace samsa::metadata {

namespace {

using assignment = std::vector<std::vector<node_id>>;

// Kafka's replicaIndex: the position of a follower, never first_replica_index
// itself. Needs n_brokers > 1, which a follower implies (RF <= n).
int64_t replica_index(int64_t first_replica_index, int64_t second_replica_shift,
                      int64_t replica_index, int64_t n_brokers) {
    const int64_t shift = 1 + (second_replica_shift + replica_index) % (n_brokers - 1);
    return (first_replica_index + shift) % n_brokers;
}

status check_replication_factor(size_t n_brokers, int16_t replication_factor) {
    if (replication_factor <= 0) {
        return error(error_code::invalid_replication_factor,
                     fmt::format("Invalid replication factor {}: the replication factor must "
                                 "be positive.",
                                 replication_factor));
    }
    if (n_brokers == 0) {
        return error(error_code::invalid_replication_factor, "All brokers are currently fenced.");
    }
    if (size_t(replication_factor) > n_brokers) {
        return error(error_code::invalid_replication_factor,
                     fmt::format("The target replication factor of {} cannot be reached because "
                                 "only {} broker(s) are registered.",
                                 replication_factor, n_brokers));
    }
    return {};
}

std::vector<broker_rack> sorted_by_id(std::vector<broker_rack> brokers) {
    std::sort(brokers.begin(), brokers.end(),
              [](const broker_rack& a, const broker_rack& b) { return a.id < b.id; });
    return brokers;
}

bool rack_aware(const std::vector<broker_rack>& brokers) {
    return std::any_of(brokers.begin(), brokers.end(),
                       [](const broker_rack& b) { return b.rack.has_value(); });
}

// The list the walk goes over: ids ascending (rack-unaware) or rack-alternated.
std::vector<node_id> walk_list(const std::vector<broker_rack>& sorted) {
    if (rack_aware(sorted)) {
        return rack_alternated_broker_list(sorted);
    }
    std::vector<node_id> ids;
    ids.reserve(sorted.size());
    for (const auto& b : sorted) {
        ids.push_back(b.id);
    }
    return ids;
}

struct walk_start {
    int64_t start_index = 0;
    int64_t next_replica_shift = 0;
};

// Kafka draws the start index, then the shift, each in [0, n).
walk_start draw_start(size_t n, std::optional<int32_t> fixed_start_index,
                      std::optional<int32_t> fixed_replica_shift, std::mt19937& rng) {
    auto draw = [&] { return int64_t(std::uniform_int_distribution<size_t>(0, n - 1)(rng)); };
    if (fixed_start_index && *fixed_start_index < 0) {
        fixed_start_index.reset();
    }
    if (fixed_replica_shift && *fixed_replica_shift < 0) {
        fixed_replica_shift.reset();
    }
    walk_start w;
    w.start_index = fixed_start_index ? *fixed_start_index : draw();
    w.next_replica_shift = fixed_replica_shift ? *fixed_replica_shift
                           : fixed_start_index ? *fixed_start_index
                                               : draw();
    return w;
}

// assignReplicasToBrokersRackUnaware over `broker_array` (ids ascending).
assignment assign_rack_unaware(const std::vector<node_id>& broker_array, int32_t start_partition_id,
                               int32_t n_partitions, int16_t replication_factor, walk_start w) {
    const int64_t n = int64_t(broker_array.size());
    int64_t current_partition_id = std::max<int64_t>(0, start_partition_id);
    int64_t next_replica_shift = w.next_replica_shift;
    assignment out;
    out.reserve(size_t(std::max(0, n_partitions)));
    for (int32_t i = 0; i < n_partitions; ++i) {
        if (current_partition_id > 0 && current_partition_id % n == 0) {
            ++next_replica_shift;
        }
        const int64_t first_replica_index = (current_partition_id + w.start_index) % n;
        std::vector<node_id> replicas = {broker_array[size_t(first_replica_index)]};
        for (int64_t j = 0; j < replication_factor - 1; ++j) {
            replicas.push_back(
                broker_array[size_t(replica_index(first_replica_index, next_replica_shift, j, n))]);
        }
        out.push_back(std::move(replicas));
        ++current_partition_id;
    }
    return out;
}

// assignReplicasToBrokersRackAware; brokers without a rack form the rack
// std::nullopt (see the header).
assignment assign_rack_aware(const std::vector<broker_rack>& sorted, int32_t start_partition_id,
                             int32_t n_partitions, int16_t replication_factor, walk_start w) {
    std::map<node_id, std::optional<std::string>> broker_rack_map;
    std::set<std::optional<std::string>> racks;
    for (const auto& b : sorted) {
        broker_rack_map[b.id] = b.rack;
        racks.insert(b.rack);
    }
    const int64_t num_racks = int64_t(racks.size());
    const std::vector<node_id> arranged = rack_alternated_broker_list(sorted);
    const int64_t num_brokers = int64_t(arranged.size());
    int64_t current_partition_id = std::max<int64_t>(0, start_partition_id);
    int64_t next_replica_shift = w.next_replica_shift;
    assignment out;
    out.reserve(size_t(std::max(0, n_partitions)));
    for (int32_t i = 0; i < n_partitions; ++i) {
        if (current_partition_id > 0 && current_partition_id % num_brokers == 0) {
            ++next_replica_shift;
        }
        const int64_t first_replica_index = (current_partition_id + w.start_index) % num_brokers;
        const node_id leader = arranged[size_t(first_replica_index)];
        std::vector<node_id> replicas = {leader};
        std::set<std::optional<std::string>> racks_with_replicas = {broker_rack_map[leader]};
        std::set<node_id> brokers_with_replicas = {leader};
        int64_t k = 0;
        for (int16_t r = 1; r < replication_factor; ++r) {
            // Terminates within num_brokers - 1 probes: k runs over every other
            // position, and while a rack has no replica all its brokers are
            // free; RF <= num_brokers leaves a free broker otherwise.
            while (true) {
                const node_id broker = arranged[size_t(replica_index(
                    first_replica_index, next_replica_shift * num_racks, k, num_brokers))];
                const auto& rack = broker_rack_map[broker];
                ++k;
                const bool rack_ok = !racks_with_replicas.count(rack) ||
                                     int64_t(racks_with_replicas.size()) == num_racks;
                const bool broker_ok = !brokers_with_replicas.count(broker) ||
                                       int64_t(brokers_with_replicas.size()) == num_brokers;
                if (rack_ok && broker_ok) {
                    replicas.push_back(broker);
                    racks_with_replicas.insert(rack);
                    brokers_with_replicas.insert(broker);
                    break;
                }
            }
        }
        out.push_back(std::move(replicas));
        ++current_partition_id;
    }
    return out;
}

}  // namespace

std::vector<node_id> usable_brokers(const metadata_image& image) {
    std::vector<node_id> out;
    for (const auto& [id, b] : image.brokers) {
        if (!b.fenced && !b.in_controlled_shutdown) {
            out.push_back(id);
        }
    }
    return out;
}

std::vector<broker_rack> usable_broker_racks(const metadata_image& image) {
    std::vector<broker_rack> out;
    for (const auto& [id, b] : image.brokers) {
        if (!b.fenced && !b.in_controlled_shutdown) {
            out.push_back({id, b.rack});
        }
    }
    return out;
}

std::vector<node_id> rack_alternated_broker_list(const std::vector<broker_rack>& brokers) {
    // getInverseMap: rack -> its brokers ascending; std::nullopt sorts first.
    std::map<std::optional<std::string>, std::vector<node_id>> by_rack;
    for (const auto& b : brokers) {
        by_rack[b.rack].push_back(b.id);
    }
    size_t rounds = 0;
    for (auto& [rack, ids] : by_rack) {
        std::sort(ids.begin(), ids.end());
        rounds = std::max(rounds, ids.size());
    }
    std::vector<node_id> out;
    out.reserve(brokers.size());
    for (size_t round = 0; round < rounds; ++round) {
        for (const auto& [rack, ids] : by_rack) {
            if (round < ids.size()) {
                out.push_back(ids[round]);
            }
        }
    }
    return out;
}

result<std::vector<std::vector<node_id>>> assign_replicas_to_brokers(
    const std::vector<broker_rack>& brokers, int32_t start_partition_id, int32_t n_partitions,
    int16_t replication_factor, std::mt19937& rng, std::optional<int32_t> fixed_start_index,
    std::optional<int32_t> fixed_replica_shift) {
    if (auto ok = check_replication_factor(brokers.size(), replication_factor); !ok) {
        return ok.err();
    }
    const std::vector<broker_rack> sorted = sorted_by_id(brokers);
    const walk_start w = draw_start(sorted.size(), fixed_start_index, fixed_replica_shift, rng);
    if (rack_aware(sorted)) {
        return assign_rack_aware(sorted, start_partition_id, n_partitions, replication_factor, w);
    }
    return assign_rack_unaware(walk_list(sorted), start_partition_id, n_partitions,
                               replication_factor, w);
}

result<std::vector<std::vector<node_id>>> assign_replicas(const std::vector<node_id>& brokers,
                                                          int32_t first_partition, int32_t count,
                                                          int16_t replication_factor,
                                                          std::mt19937& rng) {
    std::vector<broker_rack> without_racks;
    without_racks.reserve(brokers.size());
    for (node_id id : brokers) {
        without_racks.push_back({id, std::nullopt});
    }
    return assign_replicas_to_brokers(without_racks, first_partition, count, replication_factor,
                                      rng);
}

int32_t start_index_continuing(const std::vector<broker_rack>& brokers,
                               node_id partition0_first_replica) {
    const std::vector<broker_rack> sorted = sorted_by_id(brokers);
    auto it = std::find_if(sorted.begin(), sorted.end(),
                           [&](const broker_rack& b) { return b.id >= partition0_first_replica; });
    if (it == sorted.end()) {
        return 0;
    }
    const std::vector<node_id> list = walk_list(sorted);
    return int32_t(std::find(list.begin(), list.end(), it->id) - list.begin());
}

result<std::vector<std::vector<node_id>>> assign_added_partitions(
    const std::vector<broker_rack>& brokers, const std::vector<node_id>& partition0_replicas,
    int32_t existing, int32_t count, int16_t replication_factor, std::mt19937& rng) {
    std::optional<int32_t> start;
    if (!partition0_replicas.empty()) {
        start = start_index_continuing(brokers, partition0_replicas.front());
    }
    return assign_replicas_to_brokers(brokers, existing, count, replication_factor, rng, start);
}

status validate_manual_assignment(const metadata_image& image, const std::vector<node_id>& replicas,
                                  std::optional<size_t> replication_factor) {
    if (replicas.empty()) {
        return error(error_code::invalid_replica_assignment,
                     "The manual partition assignment includes an empty replica list.");
    }
    std::vector<node_id> sorted = replicas;
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

std::vector<node_id> initial_isr(const metadata_image& image,
                                 const std::vector<node_id>& replicas) {
    std::vector<node_id> isr;
    for (node_id r : replicas) {
        auto it = image.brokers.find(r);
        if (it != image.brokers.end() && !it->second.fenced && !it->second.in_controlled_shutdown) {
            isr.push_back(r);
        }
    }
    return isr;
}

}  // namespace samsa::metadata
