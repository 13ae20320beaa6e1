#include "metadata/bootstrap_metadata.h"

#include <string_view>

#include "common/clock.h"
#include "metadata/snapshot_generator.h"
#include "raft/raft_batch_codec.h"
#include "storage/file_util.h"

namespace samsa::metadata {

std::vector<metadata_record> default_bootstrap_records() {
    protocol::feature_level_record f;
    f.name = metadata_version_feature;
    f.feature_level = written_metadata_version;
    return {metadata_record(std::move(f))};
}

result<std::vector<metadata_record>> read_bootstrap_records(const std::string& dir) {
    const std::string path = storage::path_join(dir, bootstrap_file_name);
    bool missing = false;
    auto text = storage::read_whole_file(path, &missing);
    if (missing) {
        return default_bootstrap_records();
    }
    if (!text) {
        return text.err();
    }
    auto corrupt = [&](std::string_view why) {
        return error(error_code::corrupt_message,
                     "the bootstrap metadata in " + path + " cannot be used: " + std::string(why));
    };
    auto batches = raft::decode_record_batches(
        bytes_view(reinterpret_cast<const uint8_t*>(text->data()), text->size()));
    if (!batches) {
        return corrupt(batches.err().message);
    }
    // A cut file decodes as its whole batches: only the footer says it is all there.
    if (batches->empty() || batches->back().control != raft::control_record_type::snapshot_footer) {
        return corrupt("it ends before its snapshot footer");
    }
    std::vector<metadata_record> records;
    bool has_version = false;
    for (const auto& b : *batches) {
        if (b.is_control()) {
            continue;  // the snapshot header and footer
        }
        for (const auto& value : b.records) {
            auto rec = decode_metadata_record(value);
            if (!rec) {
                return corrupt(rec.err().message);
            }
            if (const auto* f = std::get_if<protocol::feature_level_record>(&*rec)) {
                has_version |= f->name == metadata_version_feature;
            }
            records.push_back(std::move(*rec));
        }
    }
    if (!has_version) {
        return corrupt("it has no FeatureLevelRecord for metadata.version");
    }
    return records;
}

status write_bootstrap_records(const std::string& dir,
                               const std::vector<metadata_record>& records) {
    const int64_t now = wall_clock_ms();
    auto data = encode_snapshot_records(records, raft::raft_epoch{0}, now, now);
    if (!data) {
        return data.err();
    }
    return storage::write_file_atomically(
        storage::path_join(dir, bootstrap_file_name),
        std::string_view(reinterpret_cast<const char*>(data->data()), data->size()));
}

}  // namespace samsa::metadata
