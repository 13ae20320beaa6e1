#include "common/timing_wheel.h"

#include <cassert>
#include <limits>

namespace samsa {

bool timer_task::cancel() {
    if (_list == nullptr) {
        return false;
    }
    _list->remove(*this);
    return true;
}

timer_task_list::~timer_task_list() {
    while (pop_front() != nullptr) {
    }
}

void timer_task_list::add(timer_task& task) {
    assert(task._list == nullptr);
    task._list = this;
    task._prev = _tail;
    task._next = nullptr;
    if (_tail != nullptr) {
        _tail->_next = &task;
    } else {
        _head = &task;
    }
    _tail = &task;
    ++_size;
    ++*_task_count;
}

void timer_task_list::remove(timer_task& task) {
    assert(task._list == this);
    if (task._prev != nullptr) {
        task._prev->_next = task._next;
    } else {
        _head = task._next;
    }
    if (task._next != nullptr) {
        task._next->_prev = task._prev;
    } else {
        _tail = task._prev;
    }
    task._list = nullptr;
    task._prev = nullptr;
    task._next = nullptr;
    --_size;
    --*_task_count;
}

timer_task* timer_task_list::pop_front() {
    timer_task* t = _head;
    if (t != nullptr) {
        remove(*t);
    }
    return t;
}

bool timer_task_list::set_expiration(int64_t expiration_ms) {
    if (_expiration_ms == expiration_ms) {
        return false;
    }
    _expiration_ms = expiration_ms;
    return true;
}

void delay_queue::push(timer_task_list& bucket) {
    _heap.push(entry{bucket.expiration_ms(), &bucket});
}

void delay_queue::drop_empty_front() {
    // Forgetting an empty bucket loses nothing: its next task sets an
    // expiration again and pushes it anew.
    while (!_heap.empty() && _heap.top().bucket->empty()) {
        _heap.top().bucket->reset_expiration();
        _heap.pop();
    }
}

namespace {

int64_t saturating_mul(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) {
        return std::numeric_limits<int64_t>::max();
    }
    return r;
}

}  // namespace

timing_wheel::timing_wheel(int64_t tick_ms, int64_t wheel_size, int64_t start_ms,
                           delay_queue& queue, size_t* task_count)
    : _tick_ms(tick_ms),
      _wheel_size(wheel_size),
      // Saturates only for wheels no delay up to timer::max_delay_ms reaches
      // past; such a wheel never needs an overflow.
      _interval_ms(saturating_mul(tick_ms, wheel_size)),
      _current_time_ms(start_ms - start_ms % tick_ms),
      _queue(queue),
      _task_count(task_count) {
    assert(tick_ms >= 1 && wheel_size >= 2 && start_ms >= 0);
    for (int64_t i = 0; i < wheel_size; ++i) {
        _buckets.emplace_back(task_count);
    }
}

bool timing_wheel::add(timer_task& task) {
    const int64_t expiration = task._expiration_ms;
    // Differences, not sums, so that nothing overflows near the top wheels.
    if (expiration - _current_time_ms < _tick_ms) {
        return false;
    }
    if (expiration - _current_time_ms < _interval_ms) {
        // Every task here expires in [current + tick, current + interval),
        // so live virtual ids span fewer than wheel_size values and no two
        // expirations share a bucket: the bucket's expiration is unambiguous.
        const int64_t virtual_id = expiration / _tick_ms;
        timer_task_list& bucket = _buckets[size_t(virtual_id % _wheel_size)];
        bucket.add(task);
        if (bucket.set_expiration(virtual_id * _tick_ms)) {
            _queue.push(bucket);
        }
        return true;
    }
    if (!_overflow) {
        _overflow = std::make_unique<timing_wheel>(_interval_ms, _wheel_size, _current_time_ms,
                                                   _queue, _task_count);
    }
    return _overflow->add(task);
}

void timing_wheel::advance_clock(int64_t time_ms) {
    if (time_ms - _current_time_ms >= _tick_ms) {
        _current_time_ms = time_ms - time_ms % _tick_ms;
        if (_overflow) {
            _overflow->advance_clock(_current_time_ms);
        }
    }
}

timer::timer(int64_t start_ms, int64_t tick_ms, int64_t wheel_size)
    : _due(&_task_count),
      _wheel(tick_ms, wheel_size, start_ms, _queue, &_task_count),
      _now_ms(start_ms) {}

void timer::add(timer_task& task, int64_t expiration_ms) {
    task.cancel();
    if (expiration_ms > _now_ms && expiration_ms - _now_ms > max_delay_ms) {
        expiration_ms = _now_ms + max_delay_ms;
    }
    task._expiration_ms = expiration_ms;
    if (!_wheel.add(task)) {
        _due.add(task);
    }
}

void timer::add_after(timer_task& task, int64_t delay_ms) {
    add(task, delay_ms >= max_delay_ms ? _now_ms + max_delay_ms : _now_ms + delay_ms);
}

size_t timer::advance(int64_t now_ms) {
    assert(!_advancing && "timer::advance is not re-entrant");
    _advancing = true;
    if (now_ms > _now_ms) {
        _now_ms = now_ms;
    }
    size_t ran = 0;
    for (;;) {
        if (timer_task* task = _due.pop_front()) {
            task->run();
            ++ran;
            continue;
        }
        timer_task_list* bucket = _queue.top();
        if (bucket == nullptr || bucket->expiration_ms() > _now_ms) {
            break;
        }
        _queue.pop();
        // The dial moves to the bucket's start before its tasks are re-added,
        // so each lands one level finer (or runs, at the lowest level).
        _wheel.advance_clock(bucket->expiration_ms());
        while (timer_task* task = bucket->pop_front()) {
            if (!_wheel.add(*task)) {
                task->run();
                ++ran;
            }
        }
        bucket->reset_expiration();
    }
    // Every remaining bucket expires after now, so the dial may catch up:
    // later adds are then placed relative to the present, not to the last
    // bucket that expired.
    _wheel.advance_clock(_now_ms);
    _advancing = false;
    return ran;
}

std::optional<int64_t> timer::next_deadline() {
    if (!_due.empty()) {
        return _now_ms;
    }
    _queue.drop_empty_front();
    if (timer_task_list* bucket = _queue.top()) {
        return bucket->expiration_ms();
    }
    return std::nullopt;
}

}  // namespace samsa
