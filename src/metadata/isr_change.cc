#include "metadata/isr_change.h"

#include <algorithm>

#include "metadata/partition_reassignment.h"

namespace samsa::metadata {

isr_change_plan plan_alter_partition(const metadata_image& image,
                                     const protocol::alter_partition_request& req,
                                     int16_t version) {
    isr_change_plan plan;
    auto& resp = plan.response;
    auto broker = image.brokers.find(req.broker_id);
    if (broker == image.brokers.end() ||
        (req.broker_epoch >= 0 && broker->second.epoch != req.broker_epoch)) {
        resp.error_code = to_wire(error_code::stale_broker_epoch);
        return plan;
    }
    const bool by_id = version >= 2;
    for (const auto& t : req.topics) {
        auto& rt = resp.topics.emplace_back();
        rt.topic_name = t.topic_name;
        rt.topic_id = t.topic_id;
        const topic_image* topic = by_id ? image.topic(t.topic_id) : image.topic(t.topic_name);
        for (const auto& p : t.partitions) {
            auto& rp = rt.partitions.emplace_back();
            rp.partition_index = p.partition_index;
            auto fail = [&](error_code ec) { rp.error_code = to_wire(ec); };
            if (!topic) {
                fail(by_id ? error_code::unknown_topic_id : error_code::unknown_topic_or_partition);
                continue;
            }
            if (p.partition_index < 0 || size_t(p.partition_index) >= topic->partitions.size()) {
                // A known topic without that partition (Kafka's ReplicationControlManager).
                fail(error_code::unknown_topic_or_partition);
                continue;
            }
            const partition_registration& reg = topic->partitions[size_t(p.partition_index)];
            if (reg.leader != req.broker_id) {
                fail(error_code::not_leader_or_follower);
                continue;
            }
            // Epochs newer than this controller's mean this controller is behind
            // (another one has moved on): NOT_CONTROLLER, so the leader asks the
            // active one again. Older ones mean the leader is behind.
            if (p.leader_epoch > reg.leader_epoch) {
                fail(error_code::not_controller);
                continue;
            }
            if (p.leader_epoch < reg.leader_epoch) {
                fail(error_code::fenced_leader_epoch);
                continue;
            }
            if (p.partition_epoch > reg.partition_epoch) {
                fail(error_code::not_controller);
                continue;
            }
            if (p.partition_epoch < reg.partition_epoch) {
                fail(error_code::invalid_update_version);
                continue;
            }
            std::vector<node_id> isr = p.new_isr;
            for (const auto& b : p.new_isr_with_epochs) {  // v3
                isr.push_back(b.broker_id);
            }
            bool valid = !isr.empty() && contains(isr, reg.leader);
            bool eligible = true;
            for (node_id r : isr) {
                valid &= contains(reg.replicas, r);
                if (!contains(reg.isr, r)) {
                    auto b = image.brokers.find(r);
                    eligible &= b != image.brokers.end() && !b->second.fenced &&
                                !b->second.in_controlled_shutdown;
                }
            }
            if (!valid) {
                fail(error_code::invalid_request);
                continue;
            }
            if (!eligible) {
                fail(error_code::ineligible_replica);
                continue;
            }
            rp.leader_id = reg.leader;
            rp.leader_epoch = reg.leader_epoch;
            rp.leader_recovery_state = reg.leader_recovery_state;
            rp.isr = isr;
            rp.partition_epoch = reg.partition_epoch;
            // The ISR change that brings in the last target replica of a
            // reassignment finishes it in the same record (Kafka's
            // PartitionChangeBuilder with the reassignment completed).
            if (auto done = finish_reassignment(image, *topic, reg, isr)) {
                rp.isr = *done->isr;
                if (done->leader != no_leader_change) {
                    rp.leader_id = done->leader;
                    rp.leader_epoch = reg.leader_epoch + 1;
                }
                rp.partition_epoch = reg.partition_epoch + 1;
                plan.records.emplace_back(std::move(*done));
                continue;
            }
            if (isr != reg.isr) {
                protocol::partition_change_record c;
                c.topic_id = topic->id;
                c.partition_id = p.partition_index;
                c.isr = isr;
                plan.records.emplace_back(std::move(c));
                rp.partition_epoch = reg.partition_epoch + 1;
            }
        }
    }
    return plan;
}

}  // namespace samsa::metadata
