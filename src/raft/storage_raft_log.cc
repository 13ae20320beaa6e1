#include "raft/storage_raft_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/logging/loggers.h"
#include "raft/raft_batch_codec.h"
#include "raft/snapshot_cleaning.h"
#include "storage/file_util.h"

namespace samsa::raft {

namespace {

constexpr std::string_view checkpoint_suffix = ".checkpoint";

// The first record batch of a file (a snapshot's SnapshotHeader batch), or
// nullopt when the file does not start with a whole one.
std::optional<bytes> read_first_batch(const std::string& path) {
    constexpr size_t k_length_end = 12;  // base offset (8) and batch length (4)
    constexpr int32_t k_max_header_batch = 1 << 20;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return std::nullopt;
    }
    std::optional<bytes> out;
    uint8_t head[k_length_end];
    if (::pread(fd, head, sizeof head, 0) == ssize_t(sizeof head)) {
        const int32_t length = int32_t(load_be32(head + 8));
        if (length > 0 && length <= k_max_header_batch) {
            bytes batch(k_length_end + size_t(length));
            if (::pread(fd, batch.data(), batch.size(), 0) == ssize_t(batch.size())) {
                out = std::move(batch);
            }
        }
    }
    ::close(fd);
    return out;
}

}  // namespace

std::string snapshot_file_name(offset_and_epoch id) {
    return fmt::format("{:020d}-{:010d}{}", id.offset.value(), id.epoch.value(), checkpoint_suffix);
}

std::optional<offset_and_epoch> parse_snapshot_file_name(std::string_view name) {
    if (name.size() != 20 + 1 + 10 + checkpoint_suffix.size() || name[20] != '-' ||
        name.substr(31) != checkpoint_suffix) {
        return std::nullopt;
    }
    int64_t offset = 0;
    int32_t epoch = 0;
    auto a = std::from_chars(name.data(), name.data() + 20, offset);
    auto b = std::from_chars(name.data() + 21, name.data() + 31, epoch);
    if (a.ec != std::errc{} || a.ptr != name.data() + 20 || b.ec != std::errc{} ||
        b.ptr != name.data() + 31) {
        return std::nullopt;
    }
    return offset_and_epoch{raft_offset{offset}, raft_epoch{epoch}};
}

result<std::unique_ptr<storage_raft_log>> storage_raft_log::open(std::shared_ptr<storage::log> log,
                                                                 std::function<int64_t()> now_ms) {
    std::unique_ptr<storage_raft_log> l(new storage_raft_log(std::move(log), std::move(now_ms)));
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(l->_log->dir(), ec)) {
        if (auto id = parse_snapshot_file_name(entry.path().filename().string())) {
            l->_snapshots.emplace(*id, nullptr);
        }
    }
    if (ec) {
        return error{error_code::kafka_storage_error,
                     fmt::format("list {}: {}", l->_log->dir(), ec.message())};
    }
    return l;
}

std::string storage_raft_log::snapshot_path(offset_and_epoch id) const {
    return storage::path_join(_log->dir(), snapshot_file_name(id));
}

raft_offset storage_raft_log::start_offset() const {
    return raft_offset{_log->log_start_offset()};
}

raft_offset storage_raft_log::end_offset() const {
    return raft_offset{_log->log_end_offset()};
}

raft_epoch storage_raft_log::last_epoch() const {
    if (_log->log_end_offset() > _log->log_start_offset()) {
        if (auto e = _log->leader_epochs().latest_epoch()) {
            return raft_epoch{*e};
        }
    }
    auto s = latest_snapshot();
    return s ? s->id.epoch : raft_epoch{0};
}

raft_offset storage_raft_log::durable_end_offset() const {
    return raft_offset{std::max(_log->recovery_point(), _log->log_start_offset())};
}

result<raft_offset> storage_raft_log::append_as_leader(std::vector<bytes> records, raft_epoch epoch,
                                                       control_record_type control) {
    if (records.empty()) {
        return error{error_code::invalid_record, "empty batch"};
    }
    int64_t now = _now_ms();
    auto batch = encode_record_batch({end_offset(), epoch, control, std::move(records)}, now);
    if (!batch) {
        return batch.err();
    }
    auto appended = _log->append_as_leader(std::span<uint8_t>(*batch), epoch.value(), now);
    if (!appended) {
        return appended.err();
    }
    return raft_offset{appended->last_offset};
}

status storage_raft_log::append_as_follower(const std::vector<raft_batch>& batches) {
    bytes all;
    int64_t now = _now_ms();
    for (const auto& b : batches) {
        auto encoded = encode_record_batch(b, now);
        if (!encoded) {
            return encoded.err();
        }
        all.insert(all.end(), encoded->begin(), encoded->end());
    }
    if (batches.empty()) {
        return {};
    }
    if (batches.front().base_offset != end_offset()) {
        return error{error_code::invalid_record, "follower batches do not continue the log"};
    }
    auto appended = _log->append_as_follower(bytes_view(all), now);
    if (!appended) {
        return appended.err();
    }
    return {};
}

status storage_raft_log::truncate_to(raft_offset end) {
    return _log->truncate_to(end.value(), _now_ms());
}

status storage_raft_log::flush() {
    return _log->flush();
}

result<std::vector<raft_batch>> storage_raft_log::read(raft_offset from, int64_t max_bytes) const {
    if (from < start_offset() || from >= end_offset()) {
        return error_code::offset_out_of_range;
    }
    auto r = _log->read(kafka_offset{from.value()}, max_bytes, std::nullopt, true);
    if (!r) {
        return r.err();
    }
    auto data = r->records.read();
    if (!data) {
        return data.err();
    }
    auto out = decode_record_batches(*data);
    if (!out) {
        return out.err();
    }
    if (out->empty()) {
        return error{error_code::corrupt_message,
                     fmt::format("no whole batch at offset {} of the metadata log", from)};
    }
    return out;
}

std::optional<offset_and_epoch> storage_raft_log::end_offset_for_epoch(raft_epoch epoch) const {
    if (_log->log_end_offset() > _log->log_start_offset()) {
        // Kafka's cache answers "undefined" above its latest epoch; the Raft
        // question (where does the largest epoch <= this one end?) has an
        // answer there: the log end.
        auto latest = _log->leader_epochs().latest_epoch();
        if (latest && epoch.value() > *latest) {
            return offset_and_epoch{end_offset(), raft_epoch{*latest}};
        }
        auto e = _log->leader_epochs().end_offset_for(epoch.value(), _log->log_end_offset());
        if (e.epoch != storage::undefined_epoch) {
            return offset_and_epoch{raft_offset{e.start_offset}, raft_epoch{e.epoch}};
        }
    }
    auto s = latest_snapshot();
    if (s && s->id.offset == start_offset() && s->id.epoch <= epoch) {
        return offset_and_epoch{start_offset(), s->id.epoch};
    }
    return std::nullopt;
}

std::optional<raft_epoch> storage_raft_log::epoch_for_offset(raft_offset offset) const {
    if (offset >= start_offset() && offset < end_offset()) {
        if (auto e = _log->leader_epochs().epoch_for_offset(offset.value())) {
            return raft_epoch{*e};
        }
        return std::nullopt;
    }
    auto s = latest_snapshot();
    if (s && s->id.offset == start_offset() && offset == start_offset() - 1) {
        return s->id.epoch;
    }
    return std::nullopt;
}

std::optional<raft_snapshot> storage_raft_log::latest_snapshot() const {
    if (_snapshots.empty()) {
        return std::nullopt;
    }
    auto it = std::prev(_snapshots.end());
    if (!it->second) {
        auto s = read_snapshot(it->first);
        if (!s) {
            logging::raft().error("event=raft_snapshot_unreadable path={} error=\"{}\"",
                                  snapshot_path(it->first), s.err().message);
            return std::nullopt;
        }
        return *s;
    }
    return raft_snapshot{it->first, it->second};
}

result<raft_snapshot> storage_raft_log::read_snapshot(offset_and_epoch id) const {
    auto it = _snapshots.find(id);
    if (it == _snapshots.end()) {
        return error_code::snapshot_not_found;
    }
    if (it->second) {
        return raft_snapshot{id, it->second};
    }
    auto data = storage::read_whole_file(snapshot_path(id));
    if (!data) {
        return data.err();
    }
    auto shared = std::make_shared<const bytes>(data->begin(), data->end());
    // Cached: a follower transferring it asks for it chunk by chunk.
    const_cast<std::shared_ptr<const bytes>&>(it->second) = shared;
    return raft_snapshot{id, shared};
}

status storage_raft_log::store_snapshot(raft_snapshot snapshot) {
    if (!_snapshots.empty() && std::prev(_snapshots.end())->first.offset >= snapshot.id.offset) {
        return {};
    }
    const bytes& d = *snapshot.data;
    if (auto st = storage::write_file_atomically(
            snapshot_path(snapshot.id),
            std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
        !st) {
        return st;
    }
    // Only the latest one's bytes stay in memory.
    for (auto& [id, data] : _snapshots) {
        data.reset();
    }
    _snapshots[snapshot.id] = snapshot.data;
    delete_old_snapshots();
    return {};
}

void storage_raft_log::delete_old_snapshots() {
    if (_snapshots.size() < 2) {
        return;
    }
    auto latest = std::prev(_snapshots.end())->first;
    for (auto it = _snapshots.begin(); it != _snapshots.end();) {
        if (it->first.offset < start_offset() && it->first != latest) {
            if (::unlink(snapshot_path(it->first).c_str()) != 0 && errno != ENOENT) {
                logging::raft().warn("event=raft_snapshot_delete_failed path={} errno={}",
                                     snapshot_path(it->first), errno);
            }
            it = _snapshots.erase(it);
        } else {
            ++it;
        }
    }
}

std::vector<snapshot_info> storage_raft_log::snapshot_infos() const {
    std::vector<snapshot_info> out;
    for (const auto& [id, data] : _snapshots) {
        if (id.offset < start_offset()) {
            continue;
        }
        snapshot_info info{id, 0, std::nullopt};
        std::error_code ec;
        info.size_bytes = int64_t(std::filesystem::file_size(snapshot_path(id), ec));
        if (ec) {
            info.size_bytes = 0;
        }
        if (data) {
            info.timestamp_ms = snapshot_header_timestamp(bytes_view(*data));
        } else if (auto head = read_first_batch(snapshot_path(id))) {
            info.timestamp_ms = snapshot_header_timestamp(bytes_view(*head));
        }
        out.push_back(info);
    }
    return out;
}

int64_t storage_raft_log::size_bytes() const {
    return _log->size_bytes();
}

result<bool> storage_raft_log::delete_before_snapshot(offset_and_epoch id) {
    if (!_snapshots.count(id) || id.offset <= start_offset()) {
        return false;
    }
    if (id.offset > end_offset() || epoch_for_offset(id.offset - 1) != id.epoch) {
        return error{error_code::invalid_request, "snapshot does not match the log"};
    }
    // The snapshot covers committed offsets only: the log may consider them
    // below its high watermark, which DeleteRecords requires.
    if (_log->high_watermark() < id.offset.value()) {
        _log->update_high_watermark(id.offset.value());
    }
    auto moved = _log->delete_records_before(id.offset.value(), _now_ms());
    if (!moved) {
        return moved.err();
    }
    delete_old_snapshots();
    return true;
}

result<bool> storage_raft_log::truncate_to_latest_snapshot() {
    auto s = latest_snapshot();
    if (!s) {
        return false;
    }
    bool consistent =
        s->id.offset <= end_offset() && s->id.offset >= start_offset() &&
        (s->id.offset == start_offset() || epoch_for_offset(s->id.offset - 1) == s->id.epoch);
    if (consistent) {
        return false;
    }
    if (auto st = _log->truncate_fully_and_start_at(s->id.offset.value(), _now_ms()); !st) {
        return st.err();
    }
    delete_old_snapshots();
    return true;
}

}  // namespace samsa::raft
