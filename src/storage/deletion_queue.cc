#include "storage/deletion_queue.h"

#include <filesystem>
#include <limits>

#include "storage/log_segment.h"

namespace samsa::storage {

void deletion_queue::schedule(std::shared_ptr<log_segment> segment, int64_t due_ms) {
    std::lock_guard lock(_mutex);
    _items.push_back({due_ms, std::move(segment), {}});
}

void deletion_queue::schedule_dir(std::string path, int64_t due_ms) {
    std::lock_guard lock(_mutex);
    _items.push_back({due_ms, nullptr, std::move(path)});
}

size_t deletion_queue::pending() const {
    std::lock_guard lock(_mutex);
    return _items.size();
}

status deletion_queue::run_due(int64_t now_ms) {
    std::vector<item> due;
    {
        std::lock_guard lock(_mutex);
        std::vector<item> keep;
        for (auto& it : _items) {
            (it.due_ms <= now_ms ? due : keep).push_back(std::move(it));
        }
        _items = std::move(keep);
    }
    status first;
    for (auto& it : due) {
        status s;
        if (it.segment) {
            s = it.segment->delete_files();
        } else {
            std::error_code ec;
            std::filesystem::remove_all(it.dir, ec);
            if (ec) {
                s = error{error_code::kafka_storage_error,
                          "remove " + it.dir + ": " + ec.message()};
            }
        }
        if (!s && first) {
            first = s;
        }
    }
    return first;
}

status deletion_queue::run_all() {
    return run_due(std::numeric_limits<int64_t>::max());
}

}  // namespace samsa::storage
