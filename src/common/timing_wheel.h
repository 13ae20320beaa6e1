#pragma once
// Kafka's hierarchical timing wheel (kafka.utils.timer: TimingWheel,
// TimerTaskList, SystemTimer), for the timeouts of delayed operations
// (docs/timing_wheel.md, seed inventory DLY-01..07).
//
// A wheel has `wheel_size` buckets of `tick_ms` each; it covers
// interval = tick_ms * wheel_size from its current time (rounded down to a
// tick). A task whose expiration lies beyond that goes to an overflow wheel,
// created on first need, whose tick is this wheel's interval. A bucket is an
// unordered doubly-linked list of tasks, so adding and cancelling are O(1).
// When a bucket gets its first task it is pushed, at its expiration (the
// start of its time range), into a delay queue ordered by expiration; the
// queue alone tells the driver when anything next needs doing, so nothing
// ticks while the broker is idle. When a bucket of an upper wheel expires,
// its tasks are re-added and fall into finer wheels ("reinsert"), until they
// run from the lowest wheel at their own tick.
//
// Time is injected: every call takes milliseconds on a clock the caller
// chooses (a steady clock in the broker, a counter in tests). Times are
// non-negative.
//
// Threading: none. A timer and its tasks belong to one shard and are touched
// only from that shard's thread; tasks run inline from timer::advance().
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <vector>

namespace samsa {

class timer_task_list;
class timing_wheel;
class timer;

// Something to run at a deadline. Intrusive: the task carries its own list
// links, so the timer allocates nothing per task and cancel() is O(1). The
// owner keeps the task alive while it is scheduled; destroying a scheduled
// task cancels it.
class timer_task {
  public:
    timer_task() = default;
    timer_task(const timer_task&) = delete;
    timer_task& operator=(const timer_task&) = delete;
    virtual ~timer_task() { cancel(); }

    // Called once when the deadline passes, from timer::advance(). The task
    // is no longer scheduled when this runs, so it may re-add itself.
    virtual void run() = 0;

    // Unschedules the task; true if it was scheduled.
    bool cancel();
    bool scheduled() const { return _list != nullptr; }
    // The absolute deadline given to the last timer::add().
    int64_t expiration_ms() const { return _expiration_ms; }

  private:
    friend class timer_task_list;
    friend class timing_wheel;
    friend class timer;

    timer_task_list* _list = nullptr;
    timer_task* _prev = nullptr;
    timer_task* _next = nullptr;
    int64_t _expiration_ms = 0;
};

// A timer_task that runs a function; for callers with no class of their own.
class callback_task final : public timer_task {
  public:
    explicit callback_task(std::function<void()> fn) : _fn(std::move(fn)) {}
    void run() override { _fn(); }

  private:
    std::function<void()> _fn;
};

// One bucket: an unordered list of tasks and the expiration of the time
// range it stands for (-1 while it is not in the delay queue).
class timer_task_list {
  public:
    // `task_count` is the timer's count of scheduled tasks, kept by the lists
    // so that a task cancelled on its own still updates it.
    explicit timer_task_list(size_t* task_count) : _task_count(task_count) {}
    timer_task_list(const timer_task_list&) = delete;
    timer_task_list& operator=(const timer_task_list&) = delete;
    // Unlinks whatever is left, so those tasks no longer point here.
    ~timer_task_list();

    void add(timer_task& task);
    void remove(timer_task& task);
    // Unlinks and returns the first task, or nullptr.
    timer_task* pop_front();

    bool empty() const { return _head == nullptr; }
    size_t size() const { return _size; }

    int64_t expiration_ms() const { return _expiration_ms; }
    // True if the expiration changed, i.e. the bucket now needs a place in
    // the delay queue (Kafka's TimerTaskList.setExpiration).
    bool set_expiration(int64_t expiration_ms);
    void reset_expiration() { _expiration_ms = -1; }

  private:
    timer_task* _head = nullptr;
    timer_task* _tail = nullptr;
    size_t _size = 0;
    int64_t _expiration_ms = -1;
    size_t* _task_count;
};

// The buckets that hold tasks, by expiration: Kafka's DelayQueue of
// TimerTaskLists. Pushing a bucket is O(log buckets), and happens only when a
// bucket goes from idle to holding tasks, never per task.
//
// Invariant: a bucket is in the queue at most once, at its current
// expiration; only pop() or drop_empty_front() reset that expiration.
class delay_queue {
  public:
    void push(timer_task_list& bucket);
    // The bucket with the earliest expiration, or nullptr.
    timer_task_list* top() const { return _heap.empty() ? nullptr : _heap.top().bucket; }
    void pop() { _heap.pop(); }
    bool empty() const { return _heap.empty(); }
    size_t size() const { return _heap.size(); }
    // Discards leading buckets whose tasks were all cancelled, so that the
    // next deadline is one where something runs.
    void drop_empty_front();

  private:
    struct entry {
        int64_t expiration_ms;
        timer_task_list* bucket;
    };
    struct later {
        bool operator()(const entry& a, const entry& b) const {
            return a.expiration_ms > b.expiration_ms;
        }
    };
    std::priority_queue<entry, std::vector<entry>, later> _heap;
};

// One level of the hierarchy.
class timing_wheel {
  public:
    timing_wheel(int64_t tick_ms, int64_t wheel_size, int64_t start_ms, delay_queue& queue,
                 size_t* task_count);
    timing_wheel(const timing_wheel&) = delete;
    timing_wheel& operator=(const timing_wheel&) = delete;

    // Puts the task in the bucket of this wheel (or of an overflow wheel)
    // that covers its expiration. False if it expires before the next tick:
    // the caller runs it.
    bool add(timer_task& task);
    // Moves the dial to `time_ms` rounded down to a tick, here and above.
    void advance_clock(int64_t time_ms);

    int64_t tick_ms() const { return _tick_ms; }
    int64_t wheel_size() const { return _wheel_size; }
    int64_t interval_ms() const { return _interval_ms; }
    int64_t current_time_ms() const { return _current_time_ms; }
    const timing_wheel* overflow() const { return _overflow.get(); }

  private:
    int64_t _tick_ms;
    int64_t _wheel_size;
    int64_t _interval_ms;
    int64_t _current_time_ms;
    // A deque so that buckets never move: tasks point at them.
    std::deque<timer_task_list> _buckets;
    delay_queue& _queue;
    size_t* _task_count;
    std::unique_ptr<timing_wheel> _overflow;
};

// The facade a shard uses (Kafka's SystemTimer without its threads): add
// tasks, advance to the current time, ask for the next deadline.
class timer {
  public:
    // Delays beyond this (about 142,000 years) are clamped, which keeps every
    // wheel's arithmetic far from overflow.
    static constexpr int64_t max_delay_ms = int64_t{1} << 52;

    // Kafka's defaults: 1 ms ticks, 20 buckets per wheel.
    explicit timer(int64_t start_ms, int64_t tick_ms = 1, int64_t wheel_size = 20);
    timer(const timer&) = delete;
    timer& operator=(const timer&) = delete;
    // Scheduled tasks are unlinked, not run.
    ~timer() = default;

    // Schedules `task` at the absolute time `expiration_ms` (rescheduling it
    // if it was scheduled). O(1), plus O(log buckets) when the bucket was
    // idle. A deadline already due is not run here, never inline: it runs on
    // the next advance(), and next_deadline() reports it as due now.
    void add(timer_task& task, int64_t expiration_ms);
    void add_after(timer_task& task, int64_t delay_ms);

    // Moves time to `now_ms` (time never goes back) and runs every task whose
    // expiration is at or before it, in bucket order: within a tick of the
    // lowest wheel, tasks run in no particular order. Tasks added by running
    // tasks that are already due run in the same call. Not re-entrant.
    // Returns the number of tasks run.
    size_t advance(int64_t now_ms);

    // The earliest time at which advance() has work: the expiration of the
    // first bucket holding tasks (for an upper wheel, when its tasks move
    // down a level), or now_ms() if tasks are due. nullopt: nothing
    // scheduled, sleep until a task is added.
    std::optional<int64_t> next_deadline();

    // Tasks scheduled and not yet run or cancelled.
    size_t size() const { return _task_count; }
    // The time given to the constructor or to the last advance().
    int64_t now_ms() const { return _now_ms; }
    const timing_wheel& wheel() const { return _wheel; }
    // Buckets in the delay queue (for tests: shows buckets are shared).
    size_t queued_buckets() const { return _queue.size(); }

  private:
    // Declared before the lists and wheels that point at them.
    size_t _task_count = 0;
    delay_queue _queue;
    // Tasks added with a deadline already passed, waiting for advance().
    timer_task_list _due;
    timing_wheel _wheel;
    int64_t _now_ms;
    bool _advancing = false;
};

}  // namespace samsa
