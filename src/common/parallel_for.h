#pragma once
// Runs a batch of independent jobs on a few short-lived threads: the startup
// and shutdown passes over every log (Kafka's num.recovery.threads.per.data.dir
// pools), which run before the reactors and after they stop, so no pool
// outlives them.

#include <cstddef>
#include <functional>

namespace samsa {

// Calls fn(i) once for every i in [0, count), on up to `threads` threads (the
// caller's among them), and returns when all calls have returned. Jobs are
// taken in order, so with one thread this is a plain loop. The first exception
// a job throws is rethrown here once every thread has stopped; the jobs not yet
// taken by then are skipped.
void parallel_for(size_t count, size_t threads, const std::function<void(size_t)>& fn);

}  // namespace samsa
