#include "storage/log_manager.h"

#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "common/logging/loggers.h"
#include "common/parallel_for.h"
#include "storage/checkpoint_file.h"
#include "storage/file_util.h"

namespace samsa::storage {

namespace fs = std::filesystem;

namespace {

// A checkpoint that cannot be read is ignored (as Kafka does), which only makes
// recovery do more: the warning says so.
offset_checkpoint read_or_warn(const std::string& path, std::vector<std::string>& warnings) {
    auto c = read_offset_checkpoint(path);
    if (!c) {
        warnings.push_back(c.err().message + " (ignored)");
        return {};
    }
    return std::move(*c);
}

int64_t find_or(const offset_checkpoint& c, const topic_partition& tp, int64_t fallback) {
    auto it = c.find(tp);
    return it == c.end() ? fallback : it->second;
}

}  // namespace

log_manager::log_manager(log_manager_config config) : _config(std::move(config)) {}

log_manager::~log_manager() = default;

log_config log_manager::config_for(const std::string& topic) const {
    return _config.topic_config ? _config.topic_config(topic) : _config.defaults;
}

result<std::unique_ptr<log_manager>> log_manager::open(log_manager_config config, int64_t now_ms) {
    if (config.log_dirs.empty()) {
        return error{error_code::kafka_storage_error, "no log dirs configured"};
    }
    for (auto& d : config.log_dirs) {
        while (d.size() > 1 && d.back() == '/') {
            d.pop_back();
        }
    }
    std::unique_ptr<log_manager> m(new log_manager(std::move(config)));
    std::vector<std::vector<log_to_open>> per_dir;
    for (const auto& path : m->_config.log_dirs) {
        log_dir_state dir;
        dir.path = path;
        dir.health = std::make_shared<log_dir_health>(
            path, [handler = m->_config.on_dir_offline](const std::string& d, const error& e) {
                logging::storage().error("event=log_dir_offline dir={} error=\"{}\"", d, e.message);
                if (handler) {
                    handler(d, e);
                }
            });
        per_dir.push_back(m->list_dir(dir, now_ms));
        m->_dirs.push_back(std::move(dir));
    }
    m->open_logs(per_dir);
    bool any_online = false;
    for (size_t d = 0; d < m->_dirs.size(); ++d) {
        m->adopt_logs(m->_dirs[d], per_dir[d], now_ms);
        any_online |= !m->_dirs[d].offline;
    }
    if (!any_online) {
        return error{error_code::kafka_storage_error,
                     "no usable log dir: " + m->_dirs.front().offline->message};
    }
    m->drop_orphan_futures(now_ms);
    return m;
}

std::vector<log_manager::log_to_open> log_manager::list_dir(log_dir_state& dir, int64_t now_ms) {
    std::error_code ec;
    fs::create_directories(dir.path, ec);
    if (ec || !fs::is_directory(dir.path, ec)) {
        dir.offline = error{error_code::kafka_storage_error,
                            "log dir " + dir.path + " is not usable: " + ec.message()};
        return {};
    }
    dir.had_clean_shutdown = fs::exists(path_join(dir.path, clean_shutdown_file), ec);
    auto recovery_points =
        read_or_warn(path_join(dir.path, recovery_point_checkpoint_file), dir.warnings);
    auto start_offsets =
        read_or_warn(path_join(dir.path, log_start_offset_checkpoint_file), dir.warnings);
    auto high_watermarks =
        read_or_warn(path_join(dir.path, replication_checkpoint_file), dir.warnings);

    std::vector<fs::path> partition_dirs, future_dirs;
    for (const auto& entry : fs::directory_iterator(dir.path, ec)) {
        if (!entry.is_directory(ec)) {
            continue;
        }
        std::string name = entry.path().filename().string();
        if (name == "__cluster_metadata-0") {
            // The metadata log belongs to the metadata room (its own
            // storage::log); as in Kafka's LogManager, it is no partition here.
            continue;
        }
        if (name.ends_with(delete_dir_suffix)) {
            _deletions->schedule_dir(entry.path().string(), now_ms);
        } else if (parse_partition_dir_name(name)) {
            partition_dirs.push_back(entry.path());
        } else if (parse_future_dir_name(name)) {
            future_dirs.push_back(entry.path());
        }
        // -stray dirs (KRaft strays) are left alone.
    }
    if (ec) {
        dir.offline = error{error_code::kafka_storage_error,
                            "cannot list log dir " + dir.path + ": " + ec.message()};
        return {};
    }
    // Future logs after the current ones: only the latter decide a duplicate.
    partition_dirs.insert(partition_dirs.end(), future_dirs.begin(), future_dirs.end());
    std::vector<log_to_open> out;
    for (const auto& p : partition_dirs) {
        auto name = p.filename().string();
        const bool future = parse_future_dir_name(name).has_value();
        auto tp = future ? *parse_future_dir_name(name) : *parse_partition_dir_name(name);
        log_open_options o;
        o.dir = p.string();
        o.tp = tp;
        o.config = config_for(tp.topic);
        o.now_ms = now_ms;
        o.recovery_point = find_or(recovery_points, tp, 0);
        o.log_start_offset = find_or(start_offsets, tp, 0);
        o.high_watermark = find_or(high_watermarks, tp, 0);
        o.had_clean_shutdown = dir.had_clean_shutdown;
        o.deletions = _deletions;
        o.executor = _config.executor;
        o.producer_state = _config.producer_state;
        o.dir_health = dir.health;
        o.background_flush = !future;
        out.push_back(log_to_open{std::move(o), future});
    }
    return out;
}

void log_manager::open_logs(std::vector<std::vector<log_to_open>>& per_dir) const {
    // Kafka's num.recovery.threads.per.data.dir: each dir has its own threads,
    // and the dirs recover at the same time. A log's recovery reads its
    // unflushed tail and rebuilds its indexes, so a dir's logs are opened in
    // parallel too; log::open touches nothing outside its own log but the
    // deletion queue and the dir's health, which are thread-safe.
    const size_t threads = size_t(std::max(1, _config.recovery_threads_per_dir));
    parallel_for(per_dir.size(), per_dir.size(), [&](size_t d) {
        auto& logs = per_dir[d];
        parallel_for(logs.size(), threads,
                     [&](size_t i) { logs[i].opened = log::open(logs[i].options); });
    });
}

void log_manager::adopt_logs(log_dir_state& dir, std::vector<log_to_open>& logs, int64_t now_ms) {
    // In the listing's order, so duplicates are decided as by a plain loop.
    for (auto& [o, future, opened] : logs) {
        const auto& tp = o.tp;
        std::lock_guard lock(_mutex);
        if (future) {
            // Resumed by the partition's shard once it is up (or dropped by
            // drop_orphan_futures); unreadable, the move starts over.
            if (opened && !_futures.count(tp)) {
                _futures.emplace(tp, std::move(*opened));
            } else {
                _deletions->schedule_dir(o.dir, now_ms);
            }
            continue;
        }
        if (!opened || _offline.count(tp)) {
            // Two copies, one unreadable: neither is guessed at.
            if (_logs.count(tp) || _offline.count(tp)) {
                _offline[tp] =
                    offline_partition{tp, o.dir,
                                      error{error_code::kafka_storage_error,
                                            "duplicate log directories for " + tp.to_string() +
                                                " in several log dirs, one unreadable"}};
                _logs.erase(tp);
            } else {
                _offline[tp] = offline_partition{tp, o.dir, opened.err()};
            }
            continue;
        }
        if (_logs.count(tp)) {
            resolve_duplicate(tp, std::move(*opened), dir, now_ms);
            continue;
        }
        _logs.emplace(tp, std::move(*opened));
    }
    // From here on a crash is an unclean shutdown.
    if (dir.had_clean_shutdown) {
        auto marker = path_join(dir.path, clean_shutdown_file);
        if (::unlink(marker.c_str()) != 0 && errno != ENOENT) {
            dir.warnings.push_back("cannot remove " + marker);
        }
        (void)fsync_dir(dir.path);
    }
}

std::shared_ptr<log> log_manager::get(const topic_partition& tp) const {
    std::lock_guard lock(_mutex);
    auto it = _logs.find(tp);
    return it == _logs.end() ? nullptr : it->second;
}

result<std::shared_ptr<log>> log_manager::get_or_create(const topic_partition& tp,
                                                        std::optional<uuid> topic_id,
                                                        int64_t now_ms) {
    if (!is_valid_topic_name(tp.topic) || tp.partition < 0) {
        return error{error_code::invalid_topic_exception, "invalid partition " + tp.to_string()};
    }
    std::lock_guard lock(_mutex);
    if (auto it = _logs.find(tp); it != _logs.end()) {
        if (topic_id && it->second->topic_id() && *it->second->topic_id() != *topic_id) {
            return error{error_code::inconsistent_topic_id,
                         tp.to_string() + " exists with another topic id"};
        }
        return it->second;
    }
    if (auto it = _offline.find(tp); it != _offline.end()) {
        return error{error_code::kafka_storage_error,
                     tp.to_string() + " is offline: " + it->second.err.message};
    }
    // The preferred dir of a move asked for earlier, else the online log dir
    // with the fewest partitions (Kafka's nextLogDirs).
    const log_dir_state* best = nullptr;
    size_t best_count = 0;
    auto preferred = _preferred_dirs.find(tp);
    for (const auto& d : _dirs) {
        if (d.is_offline()) {
            continue;
        }
        if (preferred != _preferred_dirs.end() && preferred->second == d.path) {
            best = &d;
            break;
        }
        size_t n = 0;
        for (const auto& [other, l] : _logs) {
            n += l->dir().starts_with(d.path + "/") ? 1 : 0;
        }
        if (!best || n < best_count) {
            best = &d;
            best_count = n;
        }
    }
    if (!best) {
        return error{error_code::kafka_storage_error, "no online log dir"};
    }
    auto l = log::open(
        new_log_options(tp, *best, path_join(best->path, tp.to_string()), topic_id, now_ms));
    if (!l) {
        return l.err();
    }
    _logs.emplace(tp, *l);
    _preferred_dirs.erase(tp);
    return *l;
}

log_open_options log_manager::new_log_options(const topic_partition& tp, const log_dir_state& dir,
                                              std::string log_path, std::optional<uuid> topic_id,
                                              int64_t now_ms) const {
    log_open_options o;
    o.dir = std::move(log_path);
    o.tp = tp;
    o.config = config_for(tp.topic);
    o.now_ms = now_ms;
    o.topic_id = topic_id;
    o.had_clean_shutdown = true;  // a new log has nothing to recover
    o.deletions = _deletions;
    o.executor = _config.executor;
    o.producer_state = _config.producer_state;
    o.dir_health = dir.health;
    return o;
}

status log_manager::delete_log(const topic_partition& tp, int64_t now_ms) {
    std::shared_ptr<log> l;
    {
        std::lock_guard lock(_mutex);
        auto it = _logs.find(tp);
        if (it == _logs.end()) {
            if (auto off = _offline.find(tp); off != _offline.end()) {
                // An offline partition's directory is deleted as it lies.
                auto target = (fs::path(off->second.dir).parent_path() /
                               delete_dir_name(tp, random_unique_id()))
                                  .string();
                if (::rename(off->second.dir.c_str(), target.c_str()) != 0) {
                    return io_error("rename", off->second.dir, errno);
                }
                _deletions->schedule_dir(target, now_ms);
                _offline.erase(off);
                return {};
            }
            return error{error_code::unknown_topic_or_partition, tp.to_string()};
        }
        l = it->second;
        _logs.erase(it);
    }
    if (auto s = remove_future(tp, now_ms); !s) {
        logging::storage().warn("event=future_log_delete_failed partition={} error=\"{}\"",
                                tp.to_string(), s.err().message);
    }
    auto renamed = l->close_and_rename_for_delete(now_ms);
    if (!renamed) {
        return renamed.err();
    }
    return {};
}

void log_manager::for_each_in(const std::map<topic_partition, std::shared_ptr<log>>& logs,
                              const std::function<void(const std::shared_ptr<log>&)>& fn) const {
    // Copied under the lock, called without it: fn may call back in.
    std::vector<std::shared_ptr<log>> copy;
    {
        std::lock_guard lock(_mutex);
        for (const auto& [tp, l] : logs) {
            copy.push_back(l);
        }
    }
    for (const auto& l : copy) {
        fn(l);
    }
}

void log_manager::for_each_log(const std::function<void(const std::shared_ptr<log>&)>& fn) const {
    for_each_in(_logs, fn);
}

size_t log_manager::log_count() const {
    std::lock_guard lock(_mutex);
    return _logs.size();
}

std::vector<offline_partition> log_manager::offline_partitions() const {
    std::lock_guard lock(_mutex);
    std::vector<offline_partition> out;
    for (const auto& [tp, o] : _offline) {
        out.push_back(o);
    }
    return out;
}

std::vector<log_dir_state> log_manager::log_dirs() const {
    std::lock_guard lock(_mutex);
    auto out = _dirs;
    for (auto& d : out) {
        if (!d.offline && d.health) {
            d.offline = d.health->cause();
        }
    }
    return out;
}

std::vector<topic_partition> log_manager::unwritable_partitions() const {
    std::lock_guard lock(_mutex);
    std::vector<topic_partition> out;
    for (const auto& [tp, o] : _offline) {
        out.push_back(tp);
    }
    for (const auto& d : _dirs) {
        if (!d.is_offline()) {
            continue;
        }
        for (const auto& [tp, l] : _logs) {
            if (l->dir().starts_with(d.path + "/")) {
                out.push_back(tp);
            }
        }
    }
    return out;
}

bool log_manager::all_dirs_offline() const {
    std::lock_guard lock(_mutex);
    return std::all_of(_dirs.begin(), _dirs.end(),
                       [](const log_dir_state& d) { return d.is_offline(); });
}

status log_manager::write_checkpoint_of(std::string_view file_name, const offsets_of& offset) {
    std::vector<std::pair<std::string, offset_checkpoint>> per_dir;
    {
        std::lock_guard lock(_mutex);
        for (const auto& d : _dirs) {
            if (d.is_offline()) {
                continue;
            }
            offset_checkpoint c;
            // A future log is in another dir than its partition's current one.
            for (const auto* logs : {&_logs, &_futures}) {
                for (const auto& [tp, l] : *logs) {
                    if (l->dir().starts_with(d.path + "/")) {
                        c[tp] = offset(*l);
                    }
                }
            }
            per_dir.emplace_back(path_join(d.path, file_name), std::move(c));
        }
    }
    status first;
    for (const auto& [path, c] : per_dir) {
        auto s = write_offset_checkpoint(path, c);
        if (!s && first) {
            first = s;
        }
    }
    return first;
}

status log_manager::checkpoint_recovery_points() {
    return write_checkpoint_of(recovery_point_checkpoint_file,
                               [](const log& l) { return l.recovery_point_snapshot(); });
}

status log_manager::checkpoint_log_start_offsets() {
    return write_checkpoint_of(log_start_offset_checkpoint_file,
                               [](const log& l) { return l.log_start_offset_snapshot(); });
}

status log_manager::checkpoint_high_watermarks() {
    return write_checkpoint_of(replication_checkpoint_file,
                               [](const log& l) { return l.high_watermark_snapshot(); });
}

status log_manager::write_checkpoints() {
    auto a = checkpoint_recovery_points();
    auto b = checkpoint_log_start_offsets();
    auto c = checkpoint_high_watermarks();
    return !a ? a : !b ? b : c;
}

result<int> log_manager::run_retention(int64_t now_ms) {
    int total = 0;
    std::vector<std::shared_ptr<log>> failed;
    for_each_log([&](const std::shared_ptr<log>& l) {
        l->update_config(config_for(l->partition().topic));
        auto n = l->delete_old_segments(now_ms);
        if (n) {
            total += *n;
        } else if (l->failure()) {
            failed.push_back(l);
        }
    });
    if (!failed.empty()) {
        std::lock_guard lock(_mutex);
        for (const auto& l : failed) {
            _offline[l->partition()] = offline_partition{l->partition(), l->dir(), *l->failure()};
            _logs.erase(l->partition());
        }
    }
    return total;
}

void log_manager::run_flush_checks(int64_t now_ms) {
    for_each_log([&](const std::shared_ptr<log>& l) { l->flush_if_due(now_ms); });
}

status log_manager::shutdown() {
    if (_shut_down) {
        return {};
    }
    _shut_down = true;
    std::map<std::string, bool> dir_clean;
    for (const auto& d : _dirs) {
        dir_clean[d.path] = !d.is_offline();
    }
    // Each dir's logs (futures included) are closed by its own
    // num.recovery.threads.per.data.dir threads, as Kafka flushes them.
    // (The last list is for a log in none of them, which cannot happen.)
    std::vector<std::vector<std::shared_ptr<log>>> per_dir(_dirs.size() + 1);
    auto sort_into_dirs = [&](const std::shared_ptr<log>& l) {
        size_t d = 0;
        while (d < _dirs.size() && !l->dir().starts_with(_dirs[d].path + "/")) {
            ++d;
        }
        per_dir[d].push_back(l);
    };
    for_each_log(sort_into_dirs);
    for_each_future(sort_into_dirs);
    std::vector<std::vector<status>> closed(per_dir.size());
    const size_t threads = size_t(std::max(1, _config.recovery_threads_per_dir));
    parallel_for(per_dir.size(), per_dir.size(), [&](size_t d) {
        closed[d].resize(per_dir[d].size());
        parallel_for(per_dir[d].size(), threads,
                     [&](size_t i) { closed[d][i] = per_dir[d][i]->close(); });
    });
    status first;
    for (size_t d = 0; d < per_dir.size(); ++d) {
        for (const auto& s : closed[d]) {
            if (!s) {
                if (d < _dirs.size()) {
                    dir_clean[_dirs[d].path] = false;
                }
                if (first) {
                    first = s;
                }
            }
        }
    }
    if (auto s = write_checkpoints(); !s) {
        return s;
    }
    for (const auto& [path, clean] : dir_clean) {
        if (!clean) {
            continue;
        }
        auto s = write_file_atomically(path_join(path, clean_shutdown_file), "");
        if (!s && first) {
            first = s;
        }
    }
    return first;
}

}  // namespace samsa::storage
