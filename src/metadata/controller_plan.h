#pragma once
// What the controller's operations share: the state one operation decides
// from, and what it decides — the records to commit as one batch (none when it
// only validated, or every item failed) and the response. Planning is pure: it
// reads the image and writes nothing, so each operation's rules can be tested
// on an image built by hand (tests/unit/metadata/).
#include <cstddef>
#include <random>
#include <vector>

#include "common/config/broker_config.h"
#include "common/config/config_set.h"
#include "metadata/metadata_image.h"
#include "metadata/metadata_record_serde.h"

namespace samsa::metadata {

struct controller_state {
    const metadata_image& image;
    // The broker's static config (typed fields for read-only keys such as
    // num.partitions) and the effective config set with the image's dynamic
    // layers (topic config fallbacks, DescribeConfigs).
    const config::broker_config& static_config;
    const config::config_set& broker;
    std::mt19937& rng;
};

template <typename Response>
struct controller_plan {
    std::vector<metadata_record> records;
    Response response;
};

// Kafka's bound on the partitions one CreateTopics / CreatePartitions request
// may create (MAX_RECORDS_PER_USER_OP), so one request cannot make a batch of
// millions of records.
inline constexpr int64_t max_partitions_per_request = 10000;

}  // namespace samsa::metadata
