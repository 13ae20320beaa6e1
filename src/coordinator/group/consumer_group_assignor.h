#pragma once
// The server-side assignors of consumer groups (KIP-848;
// group.consumer.assignors): given the members' subscriptions and the
// partitions of the subscribed topics, the target assignment of every member.
//
//   uniform  every member gets as many partitions as any other, give or take
//            one, among the topics it subscribes to; partitions stay with
//            the member that has them in the current target unless balance
//            needs them elsewhere, so a member joining or leaving moves only
//            the partitions it must (Kafka's UniformAssignor);
//   range    per topic, the partitions in ranges over the members subscribed
//            to it in member id order, so that members get the same
//            partitions of co-partitioned topics (Kafka's RangeAssignor).
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "coordinator/group/consumer_group_member.h"

namespace samsa::coordinator {

struct assignment_spec {
    struct member {
        std::set<uuid> topics;     // the subscribed topics that exist
        topic_assignment current;  // its current target
        // When it is due to heartbeat: among members as loaded as each
        // other, the one due first gives a partition up, since a
        // revocation waits for the owner's next heartbeat.
        int64_t heartbeat_due_ms = std::numeric_limits<int64_t>::max();
    };
    std::map<std::string, member> members;  // by member id
    std::map<uuid, int32_t> partitions;     // partition count by topic id
};

using group_assignment = std::map<std::string, topic_assignment>;

class partition_assignor {
  public:
    virtual ~partition_assignor() = default;
    virtual const char* name() const = 0;
    virtual group_assignment assign(const assignment_spec& spec) const = 0;
};

// The assignor called `name`, or nullptr for a name we do not have.
std::unique_ptr<partition_assignor> make_assignor(const std::string& name);
// The names we have, for the config's validation.
const std::vector<std::string>& known_assignors();

}  // namespace samsa::coordinator
