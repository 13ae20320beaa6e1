#include "coordinator/common/coordinator_runtime.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <asio/post.hpp>

#include "common/logging/loggers.h"
#include "common/timing_wheel.h"
#include "record/batch_builder.h"
#include "record/batch_iterator.h"

namespace samsa::coordinator {

coordinator_runtime::coordinator_runtime(coordinator_runtime_config config,
                                         cluster::purgatory_driver& driver, clock_fn wall_clock,
                                         shard_factory make_shard)
    : _config(std::move(config)),
      _driver(driver),
      _wall_clock(std::move(wall_clock)),
      _make_shard(std::move(make_shard)) {}

coordinator_runtime::~coordinator_runtime() {
    _alive.reset();
}

// ---- partition lifecycle ----------------------------------------------------

void coordinator_runtime::on_elected(int32_t partition, cluster::partition* log) {
    if (auto it = _partitions.find(partition); it != _partitions.end()) {
        if (!it->second.loading) {
            it->second.log = log;
            return;
        }
        on_resigned(partition);  // loading: start over
    }
    auto& s = _partitions[partition];
    s.log = log;
    s.loading = true;
    s.election = ++_elections;
    s.shard = _make_shard(partition);
    logging::server().debug(
        "event=coordinator_partition_loading topic={} partition={} leader_epoch={}", _config.topic,
        partition, log->leader_epoch());
    post_load_step(partition, s.election, log->log()->log_start_offset());
}

void coordinator_runtime::post_load_step(int32_t partition, uint64_t election,
                                         int64_t next_offset) {
    // One chunk per turn of the executor: other work runs between chunks.
    asio::post(_driver.executor(),
               [this, alive = std::weak_ptr<char>(_alive), partition, election, next_offset] {
                   if (alive.lock()) {
                       load_step(partition, election, next_offset);
                   }
               });
}

void coordinator_runtime::load_step(int32_t partition, uint64_t election, int64_t next_offset) {
    auto it = _partitions.find(partition);
    if (it == _partitions.end() || it->second.election != election || !it->second.loading) {
        return;  // resigned (or re-elected) meanwhile
    }
    auto& s = it->second;
    const auto& log = *s.log->log();
    next_offset = std::max(next_offset, log.log_start_offset());
    if (next_offset >= log.log_end_offset()) {
        finish_load(partition, s);
        return;
    }
    // Kafka serves what it loaded when a load fails; so does this.
    auto fail = [&](const error& e) {
        logging::server().error(
            "event=coordinator_load_failed topic={} partition={} offset={} error=\"{}\"",
            _config.topic, partition, next_offset, e.message);
        finish_load(partition, s);
    };
    auto read = log.read(kafka_offset{next_offset}, _config.load_chunk_bytes, std::nullopt, true);
    if (!read) {
        fail(read.err());
        return;
    }
    auto data = read->records.read();
    if (!data) {
        fail(data.err());
        return;
    }
    record::batch_iterator batches(*data);
    int64_t advanced_to = next_offset;
    while (auto b = batches.next()) {
        if (b->header.last_offset() < next_offset) {
            continue;  // the read starts at the segment position of an earlier batch
        }
        if (auto st = s.shard->replay(b->data); !st) {
            logging::server().warn(
                "event=coordinator_load_batch_skipped topic={} partition={} offset={} "
                "error=\"{}\"",
                _config.topic, partition, b->header.base_offset, st.err().message);
        }
        advanced_to = b->header.last_offset() + 1;
    }
    if (advanced_to == next_offset) {
        // Nothing whole to read here: the rest of the log is not ours to load.
        finish_load(partition, s);
        return;
    }
    post_load_step(partition, election, advanced_to);
}

void coordinator_runtime::finish_load(int32_t partition, state& s) {
    s.loading = false;
    s.shard->on_loaded();
}

void coordinator_runtime::on_resigned(int32_t partition) {
    auto it = _partitions.find(partition);
    if (it == _partitions.end()) {
        return;
    }
    // Out of the map first: what the shard answers while unloading finds the
    // partition gone (NOT_COORDINATOR).
    auto shard = std::move(it->second.shard);
    _partitions.erase(it);
    shard->on_unloaded();
}

error_code coordinator_runtime::status(int32_t partition) const {
    auto it = _partitions.find(partition);
    if (it == _partitions.end()) {
        return _becoming_leader && _becoming_leader(partition)
                   ? error_code::coordinator_load_in_progress
                   : error_code::not_coordinator;
    }
    return it->second.loading ? error_code::coordinator_load_in_progress : error_code::none;
}

bool coordinator_runtime::is_loading(int32_t partition) const {
    return status(partition) == error_code::coordinator_load_in_progress;
}

bool coordinator_runtime::is_loaded(int32_t partition) const {
    return status(partition) == error_code::none;
}

bool coordinator_runtime::any_loading() const {
    return std::any_of(_partitions.begin(), _partitions.end(),
                       [](const auto& p) { return p.second.loading; });
}

coordinator_shard* coordinator_runtime::loaded(int32_t partition) const {
    auto it = _partitions.find(partition);
    return it == _partitions.end() || it->second.loading ? nullptr : it->second.shard.get();
}

coordinator_shard* coordinator_runtime::shard(int32_t partition) const {
    auto it = _partitions.find(partition);
    return it == _partitions.end() ? nullptr : it->second.shard.get();
}

void coordinator_runtime::for_each(
    const std::function<void(int32_t, coordinator_shard&, bool)>& fn) const {
    for (const auto& [p, s] : _partitions) {
        fn(p, *s.shard, s.loading);
    }
}

// ---- writes -----------------------------------------------------------------

error_code coordinator_runtime::append(int32_t partition,
                                       const std::vector<coordinator_record>& records,
                                       const std::optional<txn_producer>& producer) {
    auto it = _partitions.find(partition);
    if (it == _partitions.end() || it->second.loading || !it->second.log) {
        return error_code::not_leader_or_follower;
    }
    const int64_t now = _wall_clock();
    record::batch_options options;
    if (producer) {
        options.producer_id = producer->producer_id;
        options.producer_epoch = producer->producer_epoch;
        options.transactional = true;
    }
    record::batch_builder builder(options);
    for (const auto& r : records) {
        std::optional<bytes_view> value;
        if (r.value) {
            value = bytes_view(*r.value);
        }
        builder.add(now, bytes_view(r.key), value);
    }
    auto batch = builder.build();
    if (!batch) {
        return batch.err().code;
    }
    auto out = it->second.log->append_internal(*batch, now);
    if (out.error.code == error_code::none && _append_listener) {
        _append_listener(it->second.log->tp());
    }
    if (out.error.code != error_code::none) {
        logging::server().warn("event=coordinator_append_failed topic={} partition={} error=\"{}\"",
                               _config.topic, partition,
                               out.error.message.empty() ? std::string(error_name(out.error.code))
                                                         : out.error.message);
    }
    return out.error.code;
}

void coordinator_runtime::when_replicated(int32_t partition, std::function<void(error_code)> done) {
    auto it = _partitions.find(partition);
    if (it == _partitions.end() || !it->second.log) {
        done(error_code::not_coordinator);
        return;
    }
    cluster::partition* p = it->second.log;
    // Bounded, as Kafka bounds every append of a coordinator: REQUEST_TIMED_OUT
    // when the ISR does not catch up in time. Whichever comes first answers.
    struct pending {
        std::function<void(error_code)> done;
        std::unique_ptr<callback_task> timeout;
        void finish(error_code ec) {
            if (done) {
                auto d = std::move(done);
                done = nullptr;
                d(ec);
            }
        }
    };
    auto waiting = std::make_shared<pending>();
    waiting->done = std::move(done);
    std::weak_ptr<pending> weak = waiting;
    waiting->timeout = std::make_unique<callback_task>([weak] {
        if (auto w = weak.lock()) {
            w->finish(error_code::request_timed_out);
        }
    });
    _driver.schedule(*waiting->timeout, std::max(1, _config.append_timeout_ms));
    p->when_replicated(kafka_offset{p->log()->log_end_offset()}, [waiting](error_code ec) {
        waiting->timeout->cancel();
        waiting->finish(ec);
    });
}

}  // namespace samsa::coordinator
