#pragma once
// log_dir_health: whether one log dir still takes writes, shared by every log
// in it (Kafka's LogDirFailureChannel, KIP-112). A write, roll or fsync of any
// of its logs that fails with an I/O error (a full disk's ENOSPC, EIO, a
// read-only remount) takes the whole dir offline: the disk is what failed, so
// its other logs stop taking writes at their next append instead of each
// finding out on its own, and the broker is told once (on_offline) so it can
// report the dir and give up leadership. What was written before stays on
// disk; a restart after the fault is cleared recovers it.
//
// Threading: offline() is an atomic read for the data path; take_offline() and
// cause() may be called from any thread.
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "common/error.h"

namespace samsa::storage {

class log_dir_health {
  public:
    using offline_handler = std::function<void(const std::string& dir, const error& cause)>;

    log_dir_health(std::string path, offline_handler on_offline)
        : _path(std::move(path)), _on_offline(std::move(on_offline)) {}

    const std::string& path() const { return _path; }
    bool offline() const { return _offline.load(std::memory_order_acquire); }
    std::optional<error> cause() const {
        std::lock_guard lock(_mutex);
        return _cause;
    }

    // The first call takes the dir offline and notifies; later ones do nothing.
    void take_offline(const error& e) {
        {
            std::lock_guard lock(_mutex);
            if (_cause) {
                return;
            }
            _cause = error{error_code::kafka_storage_error,
                           "log dir " + _path + " is offline: " + e.message};
            _offline.store(true, std::memory_order_release);
        }
        if (_on_offline) {
            _on_offline(_path, e);
        }
    }

  private:
    std::string _path;
    offline_handler _on_offline;
    mutable std::mutex _mutex;
    std::optional<error> _cause;
    std::atomic<bool> _offline{false};
};

}  // namespace samsa::storage
