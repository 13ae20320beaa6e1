#pragma once
// Leader elections the controller runs besides the one on fencing
// (broker_fencing.h): preferred leader election — the first replica of the
// assignment leads again once it is back in the ISR — for the ElectLeaders API
// (KIP-183, KIP-460) and for the automatic rebalance
// (auto.leader.rebalance.enable every leader.imbalance.check.interval.seconds,
// for brokers whose share of preferred partitions they do not lead exceeds
// leader.imbalance.per.broker.percentage); and unclean election (KIP-460) of a
// live replica outside the ISR when no ISR member is alive.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "metadata/metadata_image.h"
#include "metadata/metadata_record_serde.h"
#include "protocol/generated/elect_leaders_request.h"
#include "protocol/generated/elect_leaders_response.h"

namespace samsa::metadata {

enum class election_type : int8_t { preferred = 0, unclean = 1 };

// Whether broker `id` is registered and unfenced.
bool broker_alive(const metadata_image& image, node_id id);

// One partition: the change that elects per `type`, or the error ElectLeaders
// reports for it (ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE,
// ELIGIBLE_LEADERS_NOT_AVAILABLE).
struct election_outcome {
    error_code error = error_code::none;
    std::optional<protocol::partition_change_record> change;
};
election_outcome elect(const metadata_image& image, const topic_image& topic,
                       const partition_registration& p, election_type type);

struct elect_leaders_plan {
    protocol::elect_leaders_response response;
    std::vector<metadata_record> records;
};
// ElectLeaders v0-2: `topic_partitions` null means every partition (and the
// answer then lists only those elected).
elect_leaders_plan plan_elect_leaders(const metadata_image& image,
                                      const protocol::elect_leaders_request& request,
                                      int16_t version);

// The automatic rebalance: preferred elections for the partitions of every
// broker whose imbalance ratio exceeds `imbalance_percentage`.
std::vector<metadata_record> plan_auto_leader_rebalance(const metadata_image& image,
                                                        int32_t imbalance_percentage);

}  // namespace samsa::metadata
