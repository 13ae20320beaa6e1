#pragma once
// metadata_delta: applies metadata records to a base image and builds the next
// immutable image (Kafka's MetadataDelta). Topics are copy-on-write: a topic
// the records do not touch keeps its shared topic_image, a touched one is
// copied once per delta.
//
//   metadata_delta d(cache.read());
//   for (const auto& r : records) if (auto s = d.apply(r); !s) ...;
//   cache.update(d.build(last_offset));
//
// Record semantics follow Kafka's replay: PartitionChangeRecord merges only the
// fields it carries and bumps the partition epoch (and the leader epoch when it
// names a leader); RemoveTopicRecord drops the topic and its configs; a
// ConfigRecord with a null value deletes the key; FeatureLevelRecord level 0
// removes the feature. A record that contradicts the image (a partition of an
// unknown topic, a second topic with the same name) is an error and the delta
// must then be discarded.
//
// Not thread-safe; build() may be called once.
#include <memory>
#include <unordered_set>

#include "common/result.h"
#include "metadata/metadata_image.h"
#include "metadata/metadata_record_serde.h"

namespace samsa::metadata {

class metadata_delta {
  public:
    explicit metadata_delta(std::shared_ptr<const metadata_image> base);

    status apply(const metadata_record& record);

    // The image with every applied record; `offset` is the last log offset
    // they came from.
    std::shared_ptr<const metadata_image> build(int64_t offset);

    // The image as applied so far (validation of later records in the same batch).
    const metadata_image& current() const { return *_next; }

  private:
    status apply(const protocol::register_broker_record& r);
    status apply(const protocol::unregister_broker_record& r);
    status apply(const protocol::topic_record& r);
    status apply(const protocol::partition_record& r);
    status apply(const protocol::config_record& r);
    status apply(const protocol::partition_change_record& r);
    status apply(const protocol::fence_broker_record& r);
    status apply(const protocol::unfence_broker_record& r);
    status apply(const protocol::remove_topic_record& r);
    status apply(const protocol::feature_level_record& r);
    status apply(const protocol::producer_ids_record& r);
    status apply(const protocol::broker_registration_change_record& r);
    status apply(const protocol::no_op_record&) { return {}; }
    status apply(const protocol::user_scram_credential_record& r);
    status apply(const protocol::remove_user_scram_credential_record& r);
    status apply(const protocol::access_control_entry_record& r);
    status apply(const protocol::remove_access_control_entry_record& r);
    status apply(const protocol::client_quota_record& r);

    // The topic's mutable copy in this delta (copied on first touch), or nullptr.
    topic_image* mutable_topic(const uuid& id);

    std::shared_ptr<metadata_image> _next;
    std::unordered_set<const topic_image*> _owned;  // topic images copied by this delta
};

}  // namespace samsa::metadata
