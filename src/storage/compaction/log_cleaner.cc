#include "storage/compaction/log_cleaner.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "common/logging/loggers.h"
#include "storage/checkpoint_file.h"
#include "storage/file_batch_reader.h"

namespace samsa::storage::compaction {

namespace {

std::string log_dir_of(const log& l) {
    return std::filesystem::path(l.dir()).parent_path().string();
}

// Records in the dirty part, from the batch headers: an upper bound on the
// keys the offset map must hold.
result<int64_t> dirty_records(const cleaning_plan& plan) {
    int64_t n = 0;
    for (const auto& s : plan.segments) {
        if (s.next_offset <= plan.first_dirty_offset) {
            continue;
        }
        file_batch_reader reader(*s.file, 0, s.size_bytes);
        for (;;) {
            auto b = reader.next();
            if (!b) {
                return b.err();
            }
            if (!*b) {
                break;
            }
            n += std::max<int32_t>(0, (*b)->header.records_count);
        }
    }
    return n;
}

}  // namespace

owner_runner inline_runner() {
    return [](const log&, std::function<void()> fn, const std::atomic<bool>&) {
        fn();
        return true;
    };
}

log_cleaner::log_cleaner(log_cleaner_config config, log_manager& logs, owner_runner run,
                         wall_clock now)
    : _config(config), _logs(logs), _run(std::move(run)), _now(std::move(now)) {
    load_checkpoints();
}

log_cleaner::~log_cleaner() {
    stop();
}

void log_cleaner::start() {
    std::lock_guard life(_lifecycle_mutex);
    _started = true;
    start_threads();
}

void log_cleaner::stop() {
    std::lock_guard life(_lifecycle_mutex);
    _started = false;
    stop_threads();
}

void log_cleaner::reconfigure(log_cleaner_config config) {
    std::lock_guard life(_lifecycle_mutex);
    if (config == _config) {
        return;
    }
    const bool restart = _started;
    stop_threads();
    _config = config;
    logging::cleaner().info(
        "event=log_cleaner_reconfigured threads={} dedupe_buffer_size={} "
        "io_max_bytes_per_second={} "
        "backoff_ms={}",
        _config.threads, _config.dedupe_buffer_size, _config.io_max_bytes_per_second,
        _config.backoff_ms);
    if (restart) {
        start_threads();
    }
}

log_cleaner_config log_cleaner::config() const {
    std::lock_guard life(_lifecycle_mutex);
    return _config;
}

void log_cleaner::start_threads() {
    _stop = false;
    for (int i = 0; i < _config.threads; ++i) {
        _threads.emplace_back([this, i] { run_thread(size_t(i)); });
    }
}

void log_cleaner::stop_threads() {
    {
        std::lock_guard lock(_sleep_mutex);
        _stop = true;
    }
    _wake.notify_all();
    for (auto& t : _threads) {
        if (t.joinable()) {
            t.join();
        }
    }
    _threads.clear();
}

void log_cleaner::run_thread(size_t) {
    // Below the reactors: when the cores are busy, requests come first and the
    // cleaner takes what is left (and still a share under full load, as a
    // nice value only weighs the scheduler, never starves).
    (void)::setpriority(PRIO_PROCESS, pid_t(::syscall(SYS_gettid)), 10);
    while (!_stop) {
        auto cleaned = clean_once();
        if (!cleaned) {
            logging::cleaner().warn("event=log_cleaner_round_failed error=\"{}\"",
                                    cleaned.err().message);
        }
        if (cleaned && *cleaned) {
            continue;
        }
        std::unique_lock lock(_sleep_mutex);
        _wake.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(1, _config.backoff_ms)),
                       [this] { return _stop.load(); });
    }
}

void log_cleaner::load_checkpoints() {
    for (const auto& dir : _logs.log_dirs()) {
        if (dir.is_offline()) {
            continue;
        }
        auto path = path_join(dir.path, cleaner_checkpoint_file);
        auto cp = read_offset_checkpoint(path);
        if (!cp) {
            // Only costs a cleaning from the log start.
            logging::cleaner().warn("event=cleaner_checkpoint_ignored path={} error=\"{}\"", path,
                                    cp.err().message);
            continue;
        }
        std::lock_guard lock(_mutex);
        _cleaned.insert(cp->begin(), cp->end());
    }
}

status log_cleaner::write_checkpoint(const std::string& log_dir) {
    offset_checkpoint entries;
    {
        std::lock_guard lock(_mutex);
        _logs.for_each_log([&](const std::shared_ptr<log>& l) {
            auto it = _cleaned.find(l->partition());
            if (it != _cleaned.end() && log_dir_of(*l) == log_dir) {
                entries.emplace(it->first, it->second);
            }
        });
    }
    return write_offset_checkpoint(path_join(log_dir, cleaner_checkpoint_file), entries);
}

int64_t log_cleaner::first_dirty(const topic_partition& tp) const {
    std::lock_guard lock(_mutex);
    auto it = _cleaned.find(tp);
    return it == _cleaned.end() ? 0 : it->second;
}

std::map<topic_partition, int64_t> log_cleaner::cleaned_offsets() const {
    std::lock_guard lock(_mutex);
    return _cleaned;
}

std::set<topic_partition> log_cleaner::uncleanable() const {
    std::lock_guard lock(_mutex);
    return _uncleanable;
}

void log_cleaner::release(const topic_partition& tp) {
    std::lock_guard lock(_mutex);
    _in_progress.erase(tp);
}

std::optional<log_cleaner::candidate> log_cleaner::grab_filthiest(int64_t now_ms) {
    std::lock_guard select(_select_mutex);
    std::vector<std::shared_ptr<log>> compacted;
    {
        std::lock_guard lock(_mutex);
        _logs.for_each_log([&](const std::shared_ptr<log>& l) {
            if (l->compacted_snapshot() && !_in_progress.count(l->partition()) &&
                !_uncleanable.count(l->partition())) {
                compacted.push_back(l);
            }
        });
    }
    std::optional<candidate> best;
    double best_ratio = -1;
    double max_ratio = 0;
    for (auto& l : compacted) {
        auto plan = std::make_shared<cleaning_plan>();
        auto from = first_dirty(l->partition());
        bool ran = _run(
            *l, [l, plan, from, now_ms] { *plan = l->plan_cleaning(from, now_ms); }, _stop);
        if (!ran) {
            return std::nullopt;
        }
        if (plan->dirty_bytes() == 0) {
            continue;
        }
        double ratio = plan->dirty_ratio();
        max_ratio = std::max(max_ratio, ratio);
        // Kafka's test is strictly above the ratio.
        bool due =
            ratio > plan->config.min_cleanable_dirty_ratio || plan->compaction_lag_exceeded(now_ms);
        if (due && ratio > best_ratio) {
            best_ratio = ratio;
            best = candidate{l, std::move(*plan)};
        }
    }
    std::lock_guard lock(_mutex);
    // Kafka's max-dirty-percent: the dirtiest compacted log, due or not.
    _figures.max_dirty_percent = 100.0 * std::max(0.0, max_ratio);
    if (best) {
        _in_progress.insert(best->l->partition());
    }
    return best;
}

result<bool> log_cleaner::clean_once() {
    auto c = grab_filthiest(_now());
    if (!c) {
        return false;
    }
    auto tp = c->l->partition();
    auto r = clean(std::move(*c), _now());
    release(tp);
    return r;
}

result<bool> log_cleaner::clean(candidate c, int64_t now_ms) {
    const auto& plan = c.plan;
    const std::string tp = plan.tp.to_string();
    auto fail = [&](const error& e) -> result<bool> {
        if (_stop) {
            return false;
        }
        // Kafka marks the partition uncleanable and goes on with the others.
        logging::cleaner().error(
            "event=log_cleaning_failed partition={} error=\"{}\" action=uncleanable", tp,
            e.message);
        std::lock_guard lock(_mutex);
        _uncleanable.insert(plan.tp);
        return false;
    };
    auto records = dirty_records(plan);
    if (!records) {
        return fail(records.err());
    }
    const int threads = std::max(1, _config.threads);
    const size_t per_thread = size_t(_config.dedupe_buffer_size / threads);
    const double lf = std::max(0.01, _config.load_factor);
    const size_t wanted = size_t(double(*records + 16) / lf * 24.0) + 1024;
    offset_map map(std::min(per_thread, wanted), lf);
    throttler throttle(_config.io_max_bytes_per_second / threads);
    cleaning_context ctx{now_ms, &throttle, &_stop};
    const size_t segments_before = plan.segments.size();
    auto outcome = clean_log(plan, map, ctx);
    if (!outcome) {
        return fail(outcome.err());
    }
    auto shared = std::make_shared<cleaning_outcome>(std::move(*outcome));
    auto swapped = std::make_shared<result<bool>>(false);
    auto l = c.l;
    const uint64_t generation = plan.generation;
    bool ran = _run(
        *l,
        [l, shared, swapped, generation, now_ms] {
            *swapped = l->swap_cleaned(*shared, generation, now_ms);
        },
        _stop);
    if (!ran) {
        return false;
    }
    if (!*swapped) {
        return fail(swapped->err());
    }
    const auto& st = shared->stats;
    if (!**swapped) {
        logging::cleaner().info(
            "event=log_cleaning_discarded partition={} reason=\"the log changed while "
            "it was cleaned\"",
            tp);
        return true;
    }
    {
        std::lock_guard lock(_mutex);
        _cleaned[plan.tp] = shared->cleaned_up_to;
        auto& f = _figures;
        ++f.logs_cleaned;
        f.bytes_read += int64_t(st.bytes_read);
        f.bytes_written += int64_t(st.bytes_written);
        f.last_clean_time_secs = double(st.duration_ms) / 1000.0;
        f.last_recopy_percent =
            st.bytes_read > 0 ? 100.0 * double(st.bytes_written) / double(st.bytes_read) : 0;
        f.last_buffer_utilization_percent =
            map.capacity() > 0 ? 100.0 * double(map.size()) / double(map.capacity()) : 0;
        f.last_run_ms = _now();
    }
    if (auto s = write_checkpoint(log_dir_of(*l)); !s) {
        logging::cleaner().warn("event=cleaner_checkpoint_failed error=\"{}\"", s.err().message);
    }
    logging::cleaner().info(
        "event=log_cleaned partition={} segments_read={} dirty_bytes={} bytes_read={} "
        "bytes_written={} "
        "records_read={} records_kept={} tombstones_removed={} aborted_records_removed={} "
        "markers_removed={} map_entries={} dirty_ratio={:.3f} cleaned_up_to={} duration_ms={} "
        "throttled_ms={}",
        tp, segments_before, plan.dirty_bytes(), st.bytes_read, st.bytes_written, st.records_read,
        st.records_kept, st.tombstones_removed, st.aborted_records_removed, st.markers_removed,
        st.map_entries, plan.dirty_ratio(), shared->cleaned_up_to, st.duration_ms,
        throttle.slept().count());
    return true;
}

cleaner_figures log_cleaner::figures() const {
    std::lock_guard lock(_mutex);
    cleaner_figures f = _figures;
    f.uncleanable_partitions = _uncleanable.size();
    return f;
}

}  // namespace samsa::storage::compaction
