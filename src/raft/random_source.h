#pragma once
// Randomness is injected into the Raft core (randomized election timeouts,
// the voter an observer asks first), so the simulation can replay a run from
// its seed.
#include <cstdint>
#include <random>

namespace samsa::raft {

class random_source {
  public:
    virtual ~random_source() = default;
    // Uniform in [lo, hi); lo when hi <= lo.
    virtual int64_t uniform(int64_t lo, int64_t hi) = 0;
};

class seeded_random final : public random_source {
  public:
    explicit seeded_random(uint64_t seed) : _rng(seed) {}
    int64_t uniform(int64_t lo, int64_t hi) override {
        if (hi <= lo) {
            return lo;
        }
        return lo + int64_t(_rng() % uint64_t(hi - lo));
    }

  private:
    std::mt19937_64 _rng;
};

}  // namespace samsa::raft
