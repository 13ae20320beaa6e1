#pragma once
// The definition of every broker key Samsa knows: Kafka's names, types, defaults,
// validators and dynamic update modes (Kafka 3.9, KRaft mode), with Samsa's own
// defaults where Samsa chooses differently (docs/architecture.md, "Decisions"):
//   log.dir        ./data   (Kafka: /tmp/kafka-logs)
//   num.io.threads 0        (Kafka: 8) — 0 means one reactor thread per core
//   num.network.threads 0   (Kafka: 3) — 0 means each listener uses every reactor
// Keys Kafka requires in KRaft mode (process.roles, node.id,
// controller.listener.names) have no default.
#include "common/config/config_def.h"

namespace samsa::config {

const config_def& broker_config_def();

// The group coordinator's keys, defined by broker_config_def().
void define_group_coordinator_keys(config_def& d);

// Shared with the topic configs.
validator compression_type_validator();  // uncompressed, zstd, lz4, snappy, gzip, producer
validator gzip_level_validator();        // [1,...,9] or -1

}  // namespace samsa::config
