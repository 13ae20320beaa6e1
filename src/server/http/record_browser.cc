#include "server/http/record_browser.h"

#include <asio/post.hpp>

#include <algorithm>
#include <future>
#include <memory>

#include "cluster/partition.h"
#include "cluster/replica_manager.h"
#include "metadata/metadata_image.h"
#include "record/batch_iterator.h"

namespace samsa::server::http {

namespace {

// What the shard hands back: the bytes read, and where the log stands.
struct shard_read {
    error_code error = error_code::none;
    std::string message;
    int64_t start_offset = -1;
    int64_t log_start_offset = -1;
    int64_t high_watermark = -1;
    bytes data;
};

// At most this much of the log per page; the first batch comes whole (KIP-74).
constexpr int64_t k_page_bytes = 1 << 20;

shard_read read_on_shard(const cluster::partition* p, const browse_request& req) {
    shard_read out;
    if (!p || !p->is_leader()) {
        out.error = error_code::not_leader_or_follower;
        out.message = "this broker does not lead the partition";
        return out;
    }
    out.log_start_offset = p->log()->log_start_offset();
    out.high_watermark = p->high_watermark();
    int64_t offset = req.offset.value_or(out.log_start_offset);
    if (req.timestamp) {
        const auto found = p->list_offsets(
            *req.timestamp, cluster::isolation_level::read_uncommitted, no_leader_epoch);
        if (found.error.code != error_code::none) {
            out.error = found.error.code;
            out.message = found.error.message;
            return out;
        }
        offset = found.offset < 0 ? out.high_watermark : found.offset;
    }
    offset = std::clamp(offset, out.log_start_offset, out.high_watermark);
    out.start_offset = offset;
    if (offset >= out.high_watermark) {
        return out;
    }
    auto read = p->read(kafka_offset{offset}, k_page_bytes,
                        cluster::isolation_level::read_uncommitted, true, no_leader_epoch);
    if (read.error.code != error_code::none) {
        out.error = read.error.code;
        out.message = read.error.message;
        return out;
    }
    auto bytes = read.records.read();
    if (!bytes) {
        out.error = bytes.err().code;
        out.message = bytes.err().message;
        return out;
    }
    out.data = std::move(*bytes);
    return out;
}

std::string to_string(bytes_view b) {
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

void decode_page(const shard_read& read, const browse_request& req, browse_result& out) {
    record::batch_iterator batches(read.data);
    while (auto batch = batches.next()) {
        if (batch->header.is_control()) {
            continue;  // transaction markers are not records a consumer sees
        }
        auto it = record::record_iterator::open(batch->data);
        if (!it) {
            out.error = it.err().code;
            out.message = it.err().message;
            return;
        }
        record::record r;
        for (;;) {
            auto more = it->next(r);
            if (!more) {
                out.error = more.err().code;
                out.message = more.err().message;
                return;
            }
            if (!*more) {
                break;
            }
            const int64_t offset = it->offset_of(r);
            if (offset < read.start_offset) {
                continue;  // earlier records of the first batch
            }
            auto& b = out.records.emplace_back();
            b.offset = offset;
            b.timestamp = it->timestamp_of(r);
            if (r.key) {
                b.key = to_string(*r.key);
            }
            if (r.value) {
                b.value = to_string(*r.value);
            }
            for (const auto& h : r.headers) {
                b.headers.emplace_back(std::string(h.key),
                                       h.value ? std::optional(to_string(*h.value)) : std::nullopt);
            }
            if (out.records.size() >= req.limit) {
                return;
            }
        }
    }
}

}  // namespace

browse_result browse_records(cluster::replica_manager& replicas,
                             const metadata::metadata_image& image, const browse_request& req,
                             std::chrono::milliseconds patience) {
    browse_result out;
    const auto* topic = image.topic(req.topic);
    if (!topic || req.partition < 0 || size_t(req.partition) >= topic->partitions.size()) {
        out.error = error_code::unknown_topic_or_partition;
        out.message = "no such topic or partition";
        return out;
    }
    const size_t shard = replicas.shard_of(topic->id, req.partition);
    const storage::topic_partition tp{req.topic, req.partition};
    // Shared with the shard's task, which may outlive this call when late.
    auto promise = std::make_shared<std::promise<shard_read>>();
    auto answer = promise->get_future();
    asio::post(replicas.shard_context(shard), [promise, shard, tp, req, &replicas] {
        promise->set_value(read_on_shard(replicas.get(shard, tp), req));
    });
    if (answer.wait_for(patience) != std::future_status::ready) {
        out.error = error_code::request_timed_out;
        out.message = "the partition's shard did not answer in time";
        return out;
    }
    const shard_read read = answer.get();
    out.error = read.error;
    out.message = read.message;
    out.start_offset = read.start_offset;
    out.log_start_offset = read.log_start_offset;
    out.high_watermark = read.high_watermark;
    if (out.error == error_code::none) {
        decode_page(read, req, out);
    }
    return out;
}

}  // namespace samsa::server::http
