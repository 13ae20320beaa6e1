// Moving a replica between the log dirs of one broker (AlterReplicaLogDirs,
// KIP-113): the future logs of log_manager. docs/log-dir-moves.md tells the
// whole path; cluster/log_dir_mover.h fills a future log from the current one.
//
// Crash safety. The swap renames twice: the future dir to the partition's
// name in its own log dir, then the current dir to a -delete name. A crash
// before the first rename leaves a -future dir, loaded at start and filled
// again from where it was; a crash between the two leaves two current dirs
// with the same records (the future had caught up, and nothing is appended
// between the renames): load keeps the longer, which after an OS crash is the
// better flushed.
#include <spdlog/spdlog.h>

#include <filesystem>

#include "common/logging/loggers.h"
#include "storage/file_util.h"
#include "storage/log_manager.h"

namespace samsa::storage {

namespace fs = std::filesystem;

namespace {

constexpr size_t max_preferred_dirs = 100000;

std::string resolved(const std::string& path) {
    std::error_code ec;
    auto p = fs::weakly_canonical(path, ec);
    return ec ? path : p.lexically_normal().string();
}

std::string parent_of(const std::string& log_dir) {
    return fs::path(log_dir).parent_path().string();
}

}  // namespace

void log_manager::resolve_duplicate(const topic_partition& tp, std::shared_ptr<log> found,
                                    log_dir_state& dir, int64_t now_ms) {
    auto& kept = _logs[tp];
    auto dropped = found;
    if (found->log_end_offset() > kept->log_end_offset()) {
        std::swap(kept, dropped);
    }
    dir.warnings.push_back(
        "duplicate log directories for " + tp.to_string() + ": kept " + kept->dir() +
        " (log end offset " + std::to_string(kept->log_end_offset()) + "), deleting " +
        dropped->dir() + " (log end offset " + std::to_string(dropped->log_end_offset()) + ")");
    if (auto s = dropped->close_and_rename_for_delete(now_ms); !s) {
        dir.warnings.push_back("cannot delete " + dropped->dir() + ": " + s.err().message);
    }
}

void log_manager::drop_orphan_futures(int64_t now_ms) {
    std::lock_guard lock(_mutex);
    for (auto it = _futures.begin(); it != _futures.end();) {
        if (_logs.count(it->first)) {
            ++it;
            continue;
        }
        logging::storage().warn("event=future_log_dropped partition={} dir={} reason=\"{}\"",
                                it->first.to_string(), it->second->dir(), "no current log to move");
        (void)it->second->close_and_rename_for_delete(now_ms);
        it = _futures.erase(it);
    }
}

result<std::string> log_manager::online_log_dir(const std::string& path) const {
    const auto wanted = resolved(path);
    std::lock_guard lock(_mutex);
    for (const auto& d : _dirs) {
        if (resolved(d.path) != wanted) {
            continue;
        }
        if (d.is_offline()) {
            return error{error_code::kafka_storage_error, "Log directory " + path + " is offline"};
        }
        return d.path;
    }
    return error{error_code::log_dir_not_found, "Failed to find log dir " + path + "."};
}

void log_manager::set_preferred_dir(const topic_partition& tp, const std::string& dir) {
    if (!is_valid_topic_name(tp.topic) || tp.partition < 0) {
        return;  // no such replica can ever be created
    }
    std::lock_guard lock(_mutex);
    // Entries for replicas that never come are kept, as Kafka keeps them, but
    // not without bound: requests naming ever new partitions cannot grow it.
    if (_preferred_dirs.size() >= max_preferred_dirs && !_preferred_dirs.count(tp)) {
        _preferred_dirs.erase(_preferred_dirs.begin());
    }
    _preferred_dirs[tp] = dir;
}

std::shared_ptr<log> log_manager::get_future(const topic_partition& tp) const {
    std::lock_guard lock(_mutex);
    auto it = _futures.find(tp);
    return it == _futures.end() ? nullptr : it->second;
}

void log_manager::for_each_future(
    const std::function<void(const std::shared_ptr<log>&)>& fn) const {
    for_each_in(_futures, fn);
}

status log_manager::remove_future(const topic_partition& tp, int64_t now_ms) {
    std::shared_ptr<log> future;
    {
        std::lock_guard lock(_mutex);
        auto it = _futures.find(tp);
        if (it == _futures.end()) {
            return {};
        }
        future = std::move(it->second);
        _futures.erase(it);
    }
    auto renamed = future->close_and_rename_for_delete(now_ms);
    return renamed ? status() : status(renamed.err());
}

result<std::shared_ptr<log>> log_manager::create_future(const topic_partition& tp,
                                                        const std::string& dir, int64_t now_ms) {
    std::shared_ptr<log> current;
    std::shared_ptr<log> existing;
    {
        std::lock_guard lock(_mutex);
        auto it = _logs.find(tp);
        if (it == _logs.end()) {
            return error{error_code::replica_not_available,
                         "the replica of " + tp.to_string() + " is not on this broker"};
        }
        current = it->second;
        if (auto f = _futures.find(tp); f != _futures.end()) {
            existing = f->second;
        }
    }
    if (existing && parent_of(existing->dir()) == dir) {
        return existing;  // already moving there
    }
    if (auto s = remove_future(tp, now_ms); !s) {
        return s.err();
    }
    if (parent_of(current->dir()) == dir) {
        return std::shared_ptr<log>();  // already there: the move is cancelled
    }
    auto name = future_dir_name(tp, random_unique_id());
    if (!name) {
        return error{error_code::invalid_topic_exception, "The topic name is too long."};
    }
    std::lock_guard lock(_mutex);
    const log_dir_state* target = nullptr;
    for (const auto& d : _dirs) {
        target = d.path == dir ? &d : target;
    }
    if (!target || target->is_offline()) {
        return error{error_code::kafka_storage_error, "Log directory " + dir + " is offline"};
    }
    auto o = new_log_options(tp, *target, path_join(dir, *name), current->topic_id(), now_ms);
    o.config = current->config();
    o.background_flush = false;
    auto l = log::open(o);
    if (!l) {
        return l.err();
    }
    _futures.emplace(tp, *l);
    logging::storage().info("event=future_log_created partition={} dir={} from={}", tp.to_string(),
                            o.dir, current->dir());
    return *l;
}

result<std::shared_ptr<log>> log_manager::replace_current_with_future(const topic_partition& tp,
                                                                      int64_t now_ms) {
    std::shared_ptr<log> current, future;
    {
        std::lock_guard lock(_mutex);
        auto c = _logs.find(tp);
        auto f = _futures.find(tp);
        if (c == _logs.end() || f == _futures.end()) {
            return error{error_code::replica_not_available,
                         "no move of " + tp.to_string() + " in progress"};
        }
        current = c->second;
        future = f->second;
    }
    if (future->log_end_offset() != current->log_end_offset()) {
        return error{error_code::kafka_storage_error,
                     "the future log of " + tp.to_string() + " has not caught up"};
    }
    const auto final_dir = path_join(parent_of(future->dir()), tp.to_string());
    if (auto s = future->rename_dir(final_dir); !s) {
        return s.err();
    }
    future->update_high_watermark(current->high_watermark());
    {
        std::lock_guard lock(_mutex);
        _logs[tp] = future;
        _futures.erase(tp);
    }
    // The new log syncs what was copied into it, and answers the durable-ack
    // waiters the old one had not answered yet: closing it would fail them.
    future->enable_background_flush();
    for (auto& [offset, cb] : current->take_waiters()) {
        future->when_durable(offset, std::move(cb));
    }
    const auto from = current->dir();
    if (auto s = current->close_and_rename_for_delete(now_ms); !s) {
        // The new log serves; the old directory stays until the next start
        // resolves the duplicate.
        logging::storage().error(
            "event=log_dir_move_cleanup_failed partition={} dir={} error=\"{}\"", tp.to_string(),
            from, s.err().message);
    }
    logging::storage().info("event=log_dir_moved partition={} from={} to={}", tp.to_string(), from,
                            final_dir);
    return future;
}

}  // namespace samsa::storage
