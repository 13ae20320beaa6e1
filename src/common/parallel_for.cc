#include "common/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace samsa {

void parallel_for(size_t count, size_t threads, const std::function<void(size_t)>& fn) {
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr first_error;
    std::mutex error_mutex;
    auto work = [&] {
        for (size_t i = next++; i < count && !failed; i = next++) {
            try {
                fn(i);
            } catch (...) {
                std::lock_guard lock(error_mutex);
                if (!first_error) {
                    first_error = std::current_exception();
                }
                failed = true;
            }
        }
    };
    const size_t helpers = std::min(std::max<size_t>(threads, 1), count) - (count > 0 ? 1 : 0);
    {
        std::vector<std::jthread> pool;
        pool.reserve(helpers);
        for (size_t t = 0; t < helpers; ++t) {
            pool.emplace_back(work);
        }
        work();
    }  // joins the helpers
    if (first_error) {
        std::rethrow_exception(first_error);
    }
}

}  // namespace samsa
