// Storage benchmarks (issue 3). Each storage path runs next to a plain POSIX
// loop of the same sizes on the same file system in the same run, so results
// can be read as ratios (target: append >= 0.8 of the write() loop, read >=
// 0.8 of the pread() loop):
//
//   append/<batch bytes>            log::append_as_leader, 1 KiB records
//   append_group_commit/<bytes>     ... plus when_durable on a background
//                                   flusher (group commit); acked bytes/s
//   plain_write/<bytes>             write() of the same batch in a loop
//   plain_write_fdatasync/<bytes>   write() + fdatasync() each time
//   read/<bytes>                    log::read + pread of the slice, sequential
//   plain_pread/<bytes>             pread() loop over the same .log
//   offset_lookup, timestamp_lookup random lookups in a 256 MiB log
//
// Files go under $SAMSA_BENCH_DIR (default: the temp dir) and are removed.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <mutex>
#include <random>
#include <thread>

#include "common/crc32c.h"
#include "record/batch_builder.h"
#include "storage/log.h"

namespace {

using namespace samsa;
namespace fs = std::filesystem;

constexpr size_t record_bytes = 1024;

std::string bench_root() {
    const char* env = std::getenv("SAMSA_BENCH_DIR");
    fs::path base = env ? fs::path(env) : fs::temp_directory_path();
    auto dir = base / ("samsa-storage-bench-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir.string();
}

struct scoped_dir {
    std::string path = bench_root();
    ~scoped_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

// A producer's batch of `bytes` total, 1 KiB records, timestamps from `ts`.
bytes make_batch(size_t total, int64_t ts = 1000) {
    record::batch_builder b;
    bytes value(record_bytes - 20, 0x5a);
    size_t n = std::max<size_t>(1, total / record_bytes);
    for (size_t i = 0; i < n; ++i) {
        record::record_input r;
        r.timestamp = ts + int64_t(i);
        r.value = bytes_view(value);
        b.add(r);
    }
    return std::move(*b.build());
}

storage::log_config bench_config() {
    storage::log_config c;  // Kafka's defaults: 1 GiB segments, 4 KiB index interval
    return c;
}

std::shared_ptr<storage::log> open_log(const std::string& dir, storage::blocking_executor ex = {}) {
    storage::log_open_options o;
    o.dir = dir;
    o.tp = {"bench", 0};
    o.config = bench_config();
    o.had_clean_shutdown = true;
    o.executor = std::move(ex);
    auto l = storage::log::open(o);
    if (!l) {
        std::fprintf(stderr, "open: %s\n", l.err().message.c_str());
        std::abort();
    }
    return *l;
}

void BM_plain_write(benchmark::State& state) {
    scoped_dir dir;
    int fd = ::open((dir.path + "/plain").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    auto batch = make_batch(size_t(state.range(0)));
    for (auto _ : state) {
        if (::write(fd, batch.data(), batch.size()) != ssize_t(batch.size())) {
            state.SkipWithError("write failed");
            break;
        }
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(batch.size()));
    ::close(fd);
}

void BM_plain_write_fdatasync(benchmark::State& state) {
    scoped_dir dir;
    int fd = ::open((dir.path + "/plain").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    auto batch = make_batch(size_t(state.range(0)));
    for (auto _ : state) {
        if (::write(fd, batch.data(), batch.size()) != ssize_t(batch.size()) ||
            ::fdatasync(fd) != 0) {
            state.SkipWithError("write failed");
            break;
        }
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(batch.size()));
    ::close(fd);
}

// A one-thread background pool; completions come back through a queue the
// benchmark loop (the "shard") drains.
class flusher_thread {
  public:
    flusher_thread() : _thread([this] { run(); }) {}
    ~flusher_thread() {
        {
            std::lock_guard lock(_mutex);
            _stop = true;
        }
        _cv.notify_all();
        _thread.join();
    }
    storage::blocking_executor executor() {
        return [this](std::function<status()> job, std::function<void(status)> done) {
            std::lock_guard lock(_mutex);
            _jobs.emplace_back(std::move(job), std::move(done));
            _cv.notify_all();
        };
    }
    // Runs finished completions on the calling (owner) thread.
    void drain() {
        std::deque<std::pair<std::function<void(status)>, status>> done;
        {
            std::lock_guard lock(_mutex);
            done.swap(_done);
        }
        for (auto& [cb, s] : done) {
            cb(s);
        }
    }
    int64_t jobs_run() const { return _jobs_run.load(); }

  private:
    void run() {
        std::unique_lock lock(_mutex);
        for (;;) {
            _cv.wait(lock, [this] { return _stop || !_jobs.empty(); });
            if (_stop && _jobs.empty()) {
                return;
            }
            auto [job, cb] = std::move(_jobs.front());
            _jobs.pop_front();
            lock.unlock();
            status s = job();
            ++_jobs_run;
            lock.lock();
            _done.emplace_back(std::move(cb), s);
        }
    }

    std::mutex _mutex;
    std::condition_variable _cv;
    std::deque<std::pair<std::function<status()>, std::function<void(status)>>> _jobs;
    std::deque<std::pair<std::function<void(status)>, status>> _done;
    std::atomic<int64_t> _jobs_run{0};
    bool _stop = false;
    std::thread _thread;
};

// Rolls flush the old segment on the background flusher, as in the broker.
void BM_append(benchmark::State& state) {
    scoped_dir dir;
    flusher_thread flusher;
    auto l = open_log(dir.path + "/bench-0", flusher.executor());
    auto batch = make_batch(size_t(state.range(0)));
    for (auto _ : state) {
        auto r = l->append_as_leader(batch, 1, 0);
        benchmark::DoNotOptimize(r);
        flusher.drain();
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(batch.size()));
    while (l->flush_in_progress()) {
        flusher.drain();
    }
    (void)l->close(false);
}

void BM_append_group_commit(benchmark::State& state) {
    scoped_dir dir;
    flusher_thread flusher;
    auto l = open_log(dir.path + "/bench-0", flusher.executor());
    auto batch = make_batch(size_t(state.range(0)));
    int64_t acked = 0;
    int64_t appended = 0;
    // At most this many appends waiting for durability, as producers with
    // max.in.flight would be.
    const int64_t window = 64;
    for (auto _ : state) {
        while (appended - acked >= window) {
            flusher.drain();
        }
        auto r = l->append_as_leader(batch, 1, 0);
        ++appended;
        l->when_durable(r->last_offset, [&acked](status) { ++acked; });
        flusher.drain();
    }
    while (acked < appended) {
        flusher.drain();
    }
    state.SetBytesProcessed(appended * int64_t(batch.size()));
    state.counters["appends_per_fsync"] =
        double(appended) / double(std::max<int64_t>(1, flusher.jobs_run()));
    while (l->flush_in_progress()) {
        flusher.drain();
    }
    (void)l->close(false);
}

// A log of `total` bytes of `batch_bytes` batches, built once per size.
struct read_fixture {
    scoped_dir dir;
    std::shared_ptr<storage::log> log;
    std::string log_file;
    int64_t batches = 0;

    read_fixture(size_t batch_bytes, size_t total) {
        log = open_log(dir.path + "/bench-0");
        int64_t ts = 1000;
        for (size_t written = 0; written < total; ++batches) {
            auto b = make_batch(batch_bytes, ts);
            ts += int64_t(batch_bytes / record_bytes);
            (void)log->append_as_leader(b, 1, 0);
            written += b.size();
        }
        log->update_high_watermark(log->log_end_offset());
        log_file = dir.path + "/bench-0/00000000000000000000.log";
    }
};

void BM_read(benchmark::State& state) {
    size_t batch_bytes = size_t(state.range(0));
    read_fixture f(batch_bytes, 256 << 20);
    int64_t offset = 0;
    int64_t bytes_read = 0;
    for (auto _ : state) {
        auto r = f.log->read(kafka_offset{offset}, int64_t(batch_bytes), std::nullopt, true);
        auto data = r->records.read();
        bytes_read += int64_t(data->size());
        offset += int64_t(batch_bytes / record_bytes);
        if (offset >= f.log->log_end_offset()) {
            offset = 0;
        }
    }
    state.SetBytesProcessed(bytes_read);
}

void BM_plain_pread(benchmark::State& state) {
    size_t batch_bytes = size_t(state.range(0));
    read_fixture f(batch_bytes, 256 << 20);
    int fd = ::open(f.log_file.c_str(), O_RDONLY);
    int64_t size = int64_t(fs::file_size(f.log_file));
    int64_t batch_size = size / f.batches;
    bytes buf(static_cast<size_t>(batch_size));
    int64_t pos = 0;
    int64_t bytes_read = 0;
    for (auto _ : state) {
        ssize_t n = ::pread(fd, buf.data(), buf.size(), pos);
        bytes_read += n;
        pos += batch_size;
        if (pos + batch_size > size) {
            pos = 0;
        }
    }
    state.SetBytesProcessed(bytes_read);
    ::close(fd);
}

void BM_offset_lookup(benchmark::State& state) {
    read_fixture f(16 << 10, 256 << 20);
    std::mt19937_64 rng(42);
    int64_t leo = f.log->log_end_offset();
    for (auto _ : state) {
        auto r = f.log->read(kafka_offset{int64_t(rng() % uint64_t(leo))}, 1, std::nullopt, false);
        benchmark::DoNotOptimize(r);
    }
}

void BM_timestamp_lookup(benchmark::State& state) {
    read_fixture f(16 << 10, 256 << 20);
    std::mt19937_64 rng(43);
    int64_t leo = f.log->log_end_offset();
    for (auto _ : state) {
        auto r = f.log->offset_for_timestamp(1000 + int64_t(rng() % uint64_t(leo)));
        benchmark::DoNotOptimize(r);
    }
}

constexpr int64_t small_batch = 16 << 10;
constexpr int64_t large_batch = 1 << 20;

BENCHMARK(BM_append)->Arg(small_batch)->Arg(large_batch)->UseRealTime();
BENCHMARK(BM_plain_write)->Arg(small_batch)->Arg(large_batch)->UseRealTime();
BENCHMARK(BM_append_group_commit)->Arg(small_batch)->Arg(large_batch)->UseRealTime();
BENCHMARK(BM_plain_write_fdatasync)->Arg(small_batch)->Arg(large_batch)->UseRealTime();
BENCHMARK(BM_read)->Arg(small_batch)->Arg(large_batch)->UseRealTime();
BENCHMARK(BM_plain_pread)->Arg(small_batch)->Arg(large_batch)->UseRealTime();
BENCHMARK(BM_offset_lookup)->UseRealTime();
BENCHMARK(BM_timestamp_lookup)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
