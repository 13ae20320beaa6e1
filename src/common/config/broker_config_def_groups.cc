// The group coordinator's broker keys (classic groups, KIP-848 consumer
// groups, committed offsets), with Kafka 4's names and defaults.
#include "common/config/broker_config_def.h"
#include "common/config/broker_config_def_shorthand.h"

namespace samsa::config {

using namespace def_shorthand;

void define_group_coordinator_keys(config_def& d) {
    auto def = definer(d);

    // ---- Group coordinator ----
    def("offsets.topic.num.partitions", k_int, "50", validator::at_least(1), high, read_only,
        "Partitions of __consumer_offsets (do not change after deployment).");
    def("offsets.topic.replication.factor", k_short, "3", validator::at_least(1), high, read_only,
        "Replication factor of __consumer_offsets; its creation fails until the cluster has this "
        "many brokers.");
    def("offsets.topic.segment.bytes", k_int, "104857600", validator::at_least(1), high, read_only,
        "Segment size of __consumer_offsets, kept small for fast compaction and loading.");
    def("offsets.retention.minutes", k_int, "10080", validator::at_least(1), high, read_only,
        "Committed offsets of a group are kept this long after the group becomes empty.");
    def("offsets.retention.check.interval.ms", k_long, "600000", validator::at_least(1), high,
        read_only, "How often stale offsets are looked for.");
    def("offsets.commit.timeout.ms", k_int, "5000", validator::at_least(1), high, read_only,
        "How long an offset commit waits for all replicas of __consumer_offsets.");
    def("offset.metadata.max.bytes", k_int, "4096", none(), high, read_only,
        "Largest metadata string stored with an offset commit.");
    def("group.initial.rebalance.delay.ms", k_int, "3000", none(), medium, read_only,
        "How long the coordinator waits for more members before the first rebalance of a new "
        "group.");
    def("group.min.session.timeout.ms", k_int, "6000", none(), medium, read_only,
        "Smallest session timeout a consumer may ask for.");
    def("group.max.session.timeout.ms", k_int, "1800000", none(), medium, read_only,
        "Largest session timeout a consumer may ask for.");
    def("group.max.size", k_int, k_int_max, validator::at_least(1), medium, read_only,
        "Maximum number of members in one consumer group.");

    // ---- Consumer groups (KIP-848) ----
    def("group.coordinator.rebalance.protocols", k_list, "classic,consumer",
        validator::list_of({"classic", "consumer"}, false), medium, read_only,
        "The rebalance protocols the group coordinator serves; without consumer, "
        "ConsumerGroupHeartbeat is not offered.");
    def("group.consumer.session.timeout.ms", k_int, "45000", validator::at_least(1), medium,
        read_only, "Session timeout of consumer group members (KIP-848).");
    def("group.consumer.min.session.timeout.ms", k_int, "45000", validator::at_least(1), medium,
        read_only, "Smallest session timeout of consumer group members.");
    def("group.consumer.max.session.timeout.ms", k_int, "60000", validator::at_least(1), medium,
        read_only, "Largest session timeout of consumer group members.");
    def("group.consumer.heartbeat.interval.ms", k_int, "5000", validator::at_least(1), medium,
        read_only, "How often consumer group members heartbeat (KIP-848).");
    def("group.consumer.min.heartbeat.interval.ms", k_int, "5000", validator::at_least(1), medium,
        read_only, "Smallest heartbeat interval of consumer group members.");
    def("group.consumer.max.heartbeat.interval.ms", k_int, "15000", validator::at_least(1), medium,
        read_only, "Largest heartbeat interval of consumer group members.");
    def("group.consumer.max.size", k_int, k_int_max, validator::at_least(1), medium, read_only,
        "Maximum number of members in one consumer group (KIP-848).");
    def("group.consumer.migration.policy", k_string, "bidirectional",
        validator::one_of_ignoring_case({"bidirectional", "upgrade", "downgrade", "disabled"}),
        medium, read_only,
        "Whether a classic group with members converts to a consumer group when a member of "
        "the consumer protocol joins (upgrade), and a consumer group back to classic when its "
        "last member of the consumer protocol leaves (downgrade): bidirectional, upgrade, "
        "downgrade or disabled.");
    def("group.consumer.assignors", k_list, "uniform,range",
        validator::list_of(
            {"uniform", "range", "org.apache.kafka.coordinator.group.assignor.UniformAssignor",
             "org.apache.kafka.coordinator.group.assignor.RangeAssignor"},
            false),
        medium, read_only, "Server-side assignors of consumer groups; the first is the default.");
}

}  // namespace samsa::config
