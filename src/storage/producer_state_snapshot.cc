#include "storage/producer_state_snapshot.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "common/crc32c.h"
#include "storage/file_util.h"
#include "storage/segment_name.h"

namespace samsa::storage {

namespace {

constexpr size_t crc_field_offset = 2;
constexpr size_t entries_offset = 6;  // where the CRC starts covering

void put_entry(bytes& out, int64_t producer_id, const producer_state_entry& e,
               const batch_metadata* b, int64_t timestamp) {
    uint8_t buf[producer_snapshot_entry_size];
    store_be64(buf, uint64_t(producer_id));
    store_be16(buf + 8, uint16_t(e.producer_epoch));
    store_be32(buf + 10, uint32_t(b ? b->last_seq : record::no_sequence));
    store_be64(buf + 14, uint64_t(b ? b->last_offset : -1));
    store_be32(buf + 22, uint32_t(b ? b->offset_delta : 0));
    store_be64(buf + 26, uint64_t(timestamp));
    store_be32(buf + 34, uint32_t(e.coordinator_epoch));
    store_be64(buf + 38, uint64_t(e.current_txn_first_offset.value_or(-1)));
    out.insert(out.end(), buf, buf + sizeof buf);
}

error corrupt(std::string what) {
    return error{error_code::corrupt_message, "producer snapshot " + std::move(what)};
}

}  // namespace

bytes encode_producer_snapshot(const producer_map& producers) {
    bytes out(producer_snapshot_header_size);
    int32_t count = 0;
    for (const auto& [id, e] : producers) {
        if (e.batches.empty()) {
            put_entry(out, id, e, nullptr, e.last_timestamp);
            ++count;
            continue;
        }
        for (size_t i = 0; i < e.batches.size(); ++i) {
            const bool last = i + 1 == e.batches.size();
            // The last entry carries the producer's last timestamp, as Kafka's.
            put_entry(out, id, e, &e.batches[i], last ? e.last_timestamp : e.batches[i].timestamp);
            ++count;
        }
    }
    store_be16(out.data(), uint16_t(producer_snapshot_version));
    store_be32(out.data() + entries_offset, uint32_t(count));
    store_be32(out.data() + crc_field_offset,
               crc32c(out.data() + entries_offset, out.size() - entries_offset));
    return out;
}

result<producer_map> decode_producer_snapshot(bytes_view data) {
    if (data.size() < producer_snapshot_header_size) {
        return corrupt("is shorter than its header");
    }
    const auto version = int16_t(load_be16(data.data()));
    if (version != producer_snapshot_version) {
        return corrupt("has unknown version " + std::to_string(version));
    }
    const uint32_t stored = load_be32(data.data() + crc_field_offset);
    const uint32_t computed = crc32c(data.data() + entries_offset, data.size() - entries_offset);
    if (stored != computed) {
        return corrupt("CRC mismatch: stored " + std::to_string(stored) + ", computed " +
                       std::to_string(computed));
    }
    const auto count = int32_t(load_be32(data.data() + entries_offset));
    if (count < 0 || data.size() - producer_snapshot_header_size !=
                         size_t(count) * producer_snapshot_entry_size) {
        return corrupt("entry count " + std::to_string(count) + " does not match its " +
                       std::to_string(data.size()) + " bytes");
    }
    producer_map out;
    const uint8_t* p = data.data() + producer_snapshot_header_size;
    for (int32_t i = 0; i < count; ++i, p += producer_snapshot_entry_size) {
        const auto id = int64_t(load_be64(p));
        const auto epoch = int16_t(load_be16(p + 8));
        const auto last_seq = int32_t(load_be32(p + 10));
        const auto last_offset = int64_t(load_be64(p + 14));
        const auto offset_delta = int32_t(load_be32(p + 22));
        const auto timestamp = int64_t(load_be64(p + 26));
        const auto coordinator_epoch = int32_t(load_be32(p + 34));
        const auto txn_first = int64_t(load_be64(p + 38));
        auto [it, fresh] = out.try_emplace(id);
        auto& e = it->second;
        if (fresh) {
            e.producer_id = id;
            e.producer_epoch = epoch;
        }
        if (last_offset >= 0) {
            e.add_batch(epoch, last_seq, last_offset, offset_delta, timestamp);
        } else {
            e.maybe_update_epoch(epoch);
        }
        // The scalar fields of the last entry of a producer are its state.
        e.last_timestamp = timestamp;
        e.coordinator_epoch = coordinator_epoch;
        e.current_txn_first_offset =
            txn_first >= 0 ? std::optional<int64_t>(txn_first) : std::nullopt;
    }
    return out;
}

std::string producer_snapshot_file_name(int64_t offset) {
    return segment_file_name(offset, producer_snapshot_suffix);
}

std::optional<int64_t> parse_producer_snapshot_file_name(std::string_view name) {
    return parse_segment_file_name(name, producer_snapshot_suffix);
}

result<std::string> write_producer_snapshot(const std::string& dir, int64_t offset,
                                            const producer_map& producers, bool sync) {
    const auto path = path_join(dir, producer_snapshot_file_name(offset));
    const auto tmp = path + ".tmp";
    const auto data = encode_producer_snapshot(producers);
    {
        auto f = file_handle::open(tmp, O_WRONLY | O_CREAT | O_TRUNC);
        if (!f) {
            return f.err();
        }
        if (auto s = f->pwrite_all(data.data(), data.size(), 0); !s) {
            return s.err();
        }
        if (sync) {
            if (auto s = f->datasync(); !s) {
                return s.err();
            }
        }
        if (auto s = f->close(); !s) {
            return s.err();
        }
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        return io_error("rename", tmp, errno);
    }
    return path;
}

result<producer_map> read_producer_snapshot(const std::string& path) {
    auto text = read_whole_file(path);
    if (!text) {
        return text.err();
    }
    auto decoded = decode_producer_snapshot(as_bytes_view(*text));
    if (!decoded) {
        return error{decoded.err().code, path + ": " + decoded.err().message};
    }
    return decoded;
}

}  // namespace samsa::storage
