#pragma once
// What the controller writes when a broker is fenced (its session expired, or it
// asked to be) or unfenced (caught up with the metadata log): KRaft's
// replacement for the ZooKeeper-era broker-down handling of the seeds.
//
// Fencing a broker removes it from every ISR it is in (unless it is the last
// member: an ISR is never empty, so the partition keeps it and goes leaderless)
// and moves the leadership of the partitions it led to the first replica of
// the assignment that is in the new ISR and not fenced (Kafka's leader
// election rule); with none, the partition has no leader (-1) until one
// returns, unless `unclean.leader.election.enable` of the topic allows a
// replica outside the ISR (`unclean_allowed` below).
#include <cstdint>
#include <functional>
#include <vector>

#include "metadata/metadata_image.h"
#include "metadata/metadata_record_serde.h"

namespace samsa::metadata {

// FenceBrokerRecord plus the partition changes. `unclean_allowed(topic)`
// (unclean.leader.election.enable of that topic), when given and true, lets a
// partition left without a live ISR member be led by a live replica outside it.
std::vector<metadata_record> plan_fence_broker(
    const metadata_image& image, node_id broker_id,
    const std::function<bool(const std::string& topic)>& unclean_allowed = {});

// UnfenceBrokerRecord plus leaders for partitions that had none and now can
// have this broker (it is in their ISR).
std::vector<metadata_record> plan_unfence_broker(const metadata_image& image, node_id broker_id);

// Leader election over an assignment: the first replica in `isr` that `usable`
// says is alive; no_node for none.
node_id elect_leader(const std::vector<node_id>& replicas, const std::vector<node_id>& isr,
                     const std::function<bool(node_id)>& usable);

}  // namespace samsa::metadata
