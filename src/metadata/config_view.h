#pragma once
// How the broker's configs look once the metadata image's dynamic configs are
// layered on the static ones (docs/architecture.md, "Metadata": per-broker dynamic > cluster-wide
// dynamic > static file > default), and their DescribeConfigs entries.
//
//   auto broker = effective_broker_config(cfg.values, *image, cfg.node_id);
//   auto topic = config::resolve_topic_config(t->configs, broker);  // a topic's
#include <cstdint>
#include <vector>

#include "common/config/config_set.h"
#include "common/config/topic_config.h"
#include "metadata/metadata_image.h"

namespace samsa::metadata {

// The image's dynamic configs for this broker: "" is the cluster-wide default,
// "<node id>" the per-broker layer.
config::config_set effective_broker_config(const config::config_set& static_values,
                                           const metadata_image& image, int32_t node_id);

// Whether `next` changed the dynamic configs `node_id` sees (its own layer or
// the cluster-wide defaults) since `prev`.
bool broker_configs_changed(const metadata_image& prev, const metadata_image& next,
                            int32_t node_id);

// One DescribeConfigs entry (the same shape as a topic's).
using config_entry = config::topic_config_entry;

// Every broker key as DescribeConfigs shows it for the resource "<node id>":
// value (nullopt when null or sensitive), source, read_only (not dynamically
// updatable), type, documentation and synonyms (highest priority first).
std::vector<config_entry> describe_broker_configs(const config::config_set& effective);

// The cluster-wide defaults as DescribeConfigs shows them for the resource "":
// only the keys set as dynamic cluster defaults, each with that value and source.
std::vector<config_entry> describe_cluster_default_configs(const config::config_set& effective);

}  // namespace samsa::metadata
