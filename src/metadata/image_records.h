#pragma once
// The records that rebuild a metadata image from nothing: what a metadata
// snapshot (`.checkpoint`, KIP-630) holds, as Kafka's controller writes its
// snapshots — features first, then brokers, topics with their partitions,
// configs, producer ids. Replaying them onto an empty image (with the same
// cluster id) gives back an equal image.
#include <vector>

#include "metadata/metadata_image.h"
#include "metadata/metadata_record_serde.h"

namespace samsa::metadata {

std::vector<metadata_record> image_to_records(const metadata_image& image);

}  // namespace samsa::metadata
