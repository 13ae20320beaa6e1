#include "storage/producer_state_manager.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "record/batch_iterator.h"
#include "record/control_record.h"
#include "storage/file_util.h"

namespace samsa::storage {

namespace fs = std::filesystem;
using record::append_origin;

namespace {

std::string describe(const record::batch_header& h, const topic_partition& tp) {
    return "producer " + std::to_string(h.producer_id) + " at offset " +
           std::to_string(h.base_offset) + " in " + tp.to_string();
}

}  // namespace

producer_state_manager::producer_state_manager(std::string dir, topic_partition tp,
                                               producer_state_config config)
    : _dir(std::move(dir)), _tp(std::move(tp)), _config(config) {}

const producer_state_entry* producer_state_manager::find(int64_t producer_id) const {
    auto it = _producers.find(producer_id);
    return it == _producers.end() ? nullptr : &it->second;
}

result<producer_append> producer_state_manager::prepare(bytes_view batches,
                                                        append_origin origin) const {
    producer_append a;
    size_t pos = 0;
    while (pos + record::batch_header_size <= batches.size()) {
        auto h = record::decode_batch_header(batches.data() + pos);
        const size_t size = h.size_bytes();
        if (size > batches.size() - pos) {
            return error{error_code::corrupt_message, "partial batch"};
        }
        if (h.has_producer_id()) {
            // A retry is answered from the committed state alone, as Kafka does:
            // the whole append is then acknowledged with the original offsets.
            if (origin == append_origin::client) {
                if (const auto* current = find(h.producer_id)) {
                    if (auto d = current->find_duplicate(h)) {
                        a.duplicate = *d;
                        a.updated.clear();
                        return a;
                    }
                }
            }
            if (auto s = prepare_batch(a, h, batches.subspan(pos, size), origin); !s) {
                return s.err();
            }
        }
        pos += size;
    }
    return a;
}

status producer_state_manager::prepare_batch(producer_append& a, const record::batch_header& h,
                                             bytes_view batch, append_origin origin) const {
    const producer_state_entry* current = find(h.producer_id);
    auto [it, fresh] = a.updated.try_emplace(h.producer_id);
    producer_state_entry& updated = it->second;
    if (fresh) {
        // Kafka's ProducerAppendInfo starts from the producer's scalars with no
        // batches; the sequence check then looks at both.
        updated.producer_id = h.producer_id;
        if (current) {
            updated.producer_epoch = current->producer_epoch;
            updated.coordinator_epoch = current->coordinator_epoch;
            updated.last_timestamp = current->last_timestamp;
            updated.current_txn_first_offset = current->current_txn_first_offset;
        }
    }
    if (h.is_control()) {
        return check_end_txn_marker(a, updated, h, batch, origin);
    }
    return check_data_batch(updated, current, h, origin);
}

status producer_state_manager::check_data_batch(producer_state_entry& updated,
                                                const producer_state_entry* current,
                                                const record::batch_header& h,
                                                append_origin origin) const {
    const int16_t epoch = h.producer_epoch;
    if (epoch < updated.producer_epoch && origin != append_origin::replication) {
        // Since Kafka 2.7 a produce gets INVALID_PRODUCER_EPOCH, not PRODUCER_FENCED.
        return error{error_code::invalid_producer_epoch,
                     "Epoch of " + describe(h, _tp) + " is " + std::to_string(epoch) +
                         ", which is smaller than the last seen epoch " +
                         std::to_string(updated.producer_epoch)};
    }
    if (origin == append_origin::client) {
        const int32_t first_seq = h.base_sequence;
        const int16_t current_epoch = current ? current->producer_epoch : record::no_producer_epoch;
        if (epoch != updated.producer_epoch) {
            if (first_seq != 0 && updated.producer_epoch != record::no_producer_epoch) {
                return error{error_code::out_of_order_sequence_number,
                             "Invalid sequence number for new epoch of " + describe(h, _tp) + ": " +
                                 std::to_string(epoch) + " (request epoch), " +
                                 std::to_string(first_seq) + " (seq. number), " +
                                 std::to_string(updated.producer_epoch) +
                                 " (current producer epoch)"};
            }
        } else {
            int32_t last_seq = record::no_sequence;
            if (!updated.empty()) {
                last_seq = updated.last_seq();
            } else if (current && epoch == current_epoch) {
                last_seq = current->last_seq();
            }
            // No epoch at all: the producer's state is gone (expired); any
            // sequence is accepted, as Kafka does since KIP-360.
            if (current_epoch != record::no_producer_epoch && !in_sequence(last_seq, first_seq)) {
                return error{error_code::out_of_order_sequence_number,
                             "Out of order sequence number for " + describe(h, _tp) + ": " +
                                 std::to_string(first_seq) + " (incoming seq. number), " +
                                 std::to_string(last_seq) + " (current end sequence number)"};
            }
        }
    }
    const int64_t first_offset = h.base_offset;
    const int64_t last_offset = h.last_offset();
    updated.add_batch(epoch, last_sequence_of(h), last_offset, int32_t(last_offset - first_offset),
                      h.max_timestamp);
    if (updated.current_txn_first_offset && !h.is_transactional()) {
        if (origin != append_origin::replication) {
            return error{error_code::invalid_txn_state,
                         "Expected transactional write from " + describe(h, _tp)};
        }
    } else if (!updated.current_txn_first_offset && h.is_transactional()) {
        updated.current_txn_first_offset = first_offset;
    }
    return {};
}

status producer_state_manager::check_end_txn_marker(producer_append& a,
                                                    producer_state_entry& updated,
                                                    const record::batch_header& h, bytes_view batch,
                                                    append_origin origin) const {
    auto it = record::record_iterator::open(batch);
    if (!it) {
        return it.err();
    }
    record::record r;
    auto has = it->next(r);
    if (!has) {
        return has.err();
    }
    if (!*has) {
        // An empty control batch: the cleaner removed the transaction.
        return {};
    }
    auto marker = record::parse_end_txn_marker(r);
    if (!marker) {
        return origin == append_origin::replication ? status() : status(marker.err());
    }
    if (h.producer_epoch < updated.producer_epoch && origin != append_origin::replication) {
        return error{error_code::invalid_producer_epoch,
                     "Epoch of transaction marker of " + describe(h, _tp) + " is " +
                         std::to_string(h.producer_epoch) + ", below " +
                         std::to_string(updated.producer_epoch)};
    }
    if (updated.coordinator_epoch > marker->coordinator_epoch &&
        origin != append_origin::replication) {
        return error{error_code::transaction_coordinator_fenced,
                     "Invalid coordinator epoch for " + describe(h, _tp) + ": " +
                         std::to_string(marker->coordinator_epoch) + " (zombie), " +
                         std::to_string(updated.coordinator_epoch) + " (current)"};
    }
    updated.maybe_update_epoch(h.producer_epoch);
    a.marked.push_back(h.producer_id);
    if (updated.current_txn_first_offset) {
        a.completed.push_back(
            {h.producer_id, *updated.current_txn_first_offset, h.base_offset, !marker->commit});
    }
    updated.current_txn_first_offset.reset();
    updated.coordinator_epoch = marker->coordinator_epoch;
    updated.last_timestamp = it->timestamp_of(r);
    return {};
}

uint64_t producer_state_manager::begin_verification(int64_t producer_id) {
    const uint64_t guard = _next_guard++;
    _verification_guards[producer_id] = guard;
    return guard;
}

bool producer_state_manager::is_verified(int64_t producer_id, uint64_t guard) const {
    auto it = _verification_guards.find(producer_id);
    return it != _verification_guards.end() && it->second == guard;
}

void producer_state_manager::commit(producer_append&& a, int64_t map_end_offset) {
    for (const auto& t : a.completed) {
        _ongoing.erase(t.first_offset);
        _unreplicated[t.first_offset] = t;
    }
    for (int64_t id : a.marked) {
        _verification_guards.erase(id);
    }
    for (auto& [id, next] : a.updated) {
        auto it = _producers.find(id);
        if (it == _producers.end()) {
            it = _producers.emplace(id, std::move(next)).first;
        } else {
            it->second.update(next);
        }
        if (it->second.current_txn_first_offset) {
            _ongoing[*it->second.current_txn_first_offset] = id;
            _verification_guards.erase(id);  // used: the transaction is open here
        }
    }
    _map_end_offset = map_end_offset;
}

std::optional<int64_t> producer_state_manager::first_unstable_offset() const {
    std::optional<int64_t> first;
    if (!_ongoing.empty()) {
        first = _ongoing.begin()->first;
    }
    if (!_unreplicated.empty() && (!first || _unreplicated.begin()->first < *first)) {
        first = _unreplicated.begin()->first;
    }
    return first;
}

void producer_state_manager::on_high_watermark(int64_t high_watermark) {
    std::erase_if(_unreplicated, [high_watermark](const auto& kv) {
        return kv.second.last_offset < high_watermark;
    });
}

int64_t producer_state_manager::last_stable_offset_after(const completed_txn& t) const {
    std::optional<int64_t> first;
    for (const auto& [offset, id] : _ongoing) {
        if (offset != t.first_offset) {
            first = offset;
            break;
        }
    }
    for (const auto& [offset, other] : _unreplicated) {
        if (offset != t.first_offset) {
            first = first ? std::min(*first, offset) : offset;
            break;
        }
    }
    return first.value_or(t.last_offset + 1);
}

void producer_state_manager::rebuild_transactions() {
    _ongoing.clear();
    _unreplicated.clear();
    for (const auto& [id, e] : _producers) {
        if (e.current_txn_first_offset) {
            _ongoing[*e.current_txn_first_offset] = id;
        }
    }
}

bool producer_state_manager::is_expired(const producer_state_entry& e, int64_t now_ms) const {
    return !e.current_txn_first_offset &&
           now_ms - e.last_timestamp >= _config.producer_id_expiration_ms;
}

size_t producer_state_manager::remove_expired_producers(int64_t now_ms) {
    return std::erase_if(_producers, [&](const auto& kv) { return is_expired(kv.second, now_ms); });
}

status producer_state_manager::truncate_fully_and_start_at(int64_t offset) {
    _producers.clear();
    rebuild_transactions();
    while (!_snapshots.empty()) {
        delete_snapshot(_snapshots.begin()->first);
    }
    _map_end_offset = offset;
    return {};
}

// ---- snapshots

status producer_state_manager::scan_snapshots() {
    _snapshots.clear();
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(_dir, ec)) {
        auto name = entry.path().filename().string();
        if (auto offset = parse_producer_snapshot_file_name(name)) {
            _snapshots[*offset] = entry.path().string();
        }
    }
    if (ec) {
        return error{error_code::kafka_storage_error, "list " + _dir + ": " + ec.message()};
    }
    return {};
}

void producer_state_manager::delete_snapshot(int64_t offset) {
    auto it = _snapshots.find(offset);
    if (it == _snapshots.end()) {
        return;
    }
    // A snapshot that cannot be removed is harmless: the next load validates it.
    (void)::unlink(it->second.c_str());
    std::erase(_unsynced, it->second);
    _snapshots.erase(it);
}

status producer_state_manager::remove_stray_snapshots(const std::vector<int64_t>& segment_bases) {
    if (auto s = scan_snapshots(); !s) {
        return s;
    }
    const int64_t max_base = segment_bases.empty() ? -1 : segment_bases.back();
    std::vector<int64_t> strays;
    for (const auto& [offset, path] : _snapshots) {
        if (!std::binary_search(segment_bases.begin(), segment_bases.end(), offset)) {
            strays.push_back(offset);
        }
    }
    // Keep the newest stray when it is above every segment base.
    if (!strays.empty() && strays.back() > max_base) {
        strays.pop_back();
    }
    for (int64_t o : strays) {
        delete_snapshot(o);
    }
    return {};
}

status producer_state_manager::truncate_and_reload(int64_t lowest, int64_t log_end,
                                                   int64_t now_ms) {
    std::vector<int64_t> out_of_range;
    for (const auto& [offset, path] : _snapshots) {
        if (offset > log_end || offset < lowest) {
            out_of_range.push_back(offset);
        }
    }
    for (int64_t o : out_of_range) {
        delete_snapshot(o);
    }
    _producers.clear();
    while (!_snapshots.empty()) {
        auto latest = std::prev(_snapshots.end());
        auto loaded = read_producer_snapshot(latest->second);
        if (!loaded) {
            if (loaded.err().code != error_code::corrupt_message) {
                return loaded.err();
            }
            // A torn or damaged snapshot: fall back to an older one, or the log.
            delete_snapshot(latest->first);
            continue;
        }
        for (auto& [id, e] : *loaded) {
            if (!is_expired(e, now_ms)) {
                _producers.emplace(id, std::move(e));
            }
        }
        _map_end_offset = latest->first;
        rebuild_transactions();
        return {};
    }
    _map_end_offset = lowest;
    rebuild_transactions();
    return {};
}

status producer_state_manager::take_snapshot(bool sync) {
    if (_snapshots.count(_map_end_offset)) {
        return {};
    }
    auto path = write_producer_snapshot(_dir, _map_end_offset, _producers, sync);
    if (!path) {
        return path.err();
    }
    _snapshots[_map_end_offset] = *path;
    if (!sync) {
        _unsynced.push_back(*path);
    }
    return {};
}

void producer_state_manager::delete_snapshots_before(int64_t offset) {
    while (!_snapshots.empty() && _snapshots.begin()->first < offset) {
        delete_snapshot(_snapshots.begin()->first);
    }
}

std::optional<int64_t> producer_state_manager::latest_snapshot_offset() const {
    if (_snapshots.empty()) {
        return std::nullopt;
    }
    return _snapshots.rbegin()->first;
}

std::vector<int64_t> producer_state_manager::snapshot_offsets() const {
    std::vector<int64_t> out;
    for (const auto& [offset, path] : _snapshots) {
        out.push_back(offset);
    }
    return out;
}

std::vector<std::string> producer_state_manager::take_unsynced_snapshots() {
    return std::exchange(_unsynced, {});
}

void producer_state_manager::set_dir(const std::string& dir) {
    auto rebase = [&](const std::string& p) {
        return path_join(dir, std::filesystem::path(p).filename().string());
    };
    _dir = dir;
    for (auto& [offset, path] : _snapshots) {
        path = rebase(path);
    }
    for (auto& path : _unsynced) {
        path = rebase(path);
    }
}

}  // namespace samsa::storage
