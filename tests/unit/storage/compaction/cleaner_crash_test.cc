// Crash safety of cleaning: a kill at any step of the swap leaves, after the
// next load, every record at the offset it was written at and the latest value
// of every key; a randomised model test over writes, deletes, rolls, cleanings
// and crashes.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "storage/compaction/compaction_fixture.h"
#include "storage/segment_name.h"

namespace samsa::storage::testing {
namespace {

namespace fs = std::filesystem;

struct cleaner_crash : compaction_fixture {
    // Logs "killed" mid-swap: kept alive, never closed, as a dead process's
    // state would be: nothing more reaches the disk from them.
    std::vector<std::shared_ptr<log>> dead;
    std::map<int64_t, kv> written;  // offset -> record
    std::map<std::string, std::optional<std::string>> model;

    void crash_and_reload() {
        dead.push_back(l);
        l = open_log(false);
        ASSERT_TRUE(l);
    }

    int64_t put_model(const std::string& k, const std::optional<std::string>& v) {
        int64_t o = write({{k, v}});
        written[o] = {k, v};
        model[k] = v;
        return o;
    }

    bool has_suffix(std::string_view suffix) {
        for (const auto& e : fs::directory_iterator(dir)) {
            auto n = e.path().filename().string();
            if (n.size() >= suffix.size() &&
                n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) {
                return true;
            }
        }
        return false;
    }

    void check_against_model() {
        auto rs = read_all();
        int64_t prev = -1;
        std::map<std::string, std::optional<std::string>> seen;
        for (const auto& r : rs) {
            ASSERT_GT(r.offset, prev);
            prev = r.offset;
            auto it = written.find(r.offset);
            ASSERT_NE(it, written.end()) << "offset " << r.offset << " was never written";
            ASSERT_EQ(r.key, it->second.key) << "at offset " << r.offset;
            ASSERT_EQ(r.value, it->second.value) << "at offset " << r.offset;
            seen[*r.key] = r.value;
        }
        for (const auto& [k, v] : model) {
            if (v) {
                ASSERT_TRUE(seen.count(k)) << k << " lost";
                ASSERT_EQ(seen[k], v) << k;
            } else if (seen.count(k)) {
                ASSERT_FALSE(seen[k].has_value()) << k << " came back after its tombstone";
            }
        }
        ASSERT_EQ(l->log_end_offset(), written.empty() ? 0 : written.rbegin()->first + 1);
    }
};

TEST_F(cleaner_crash, a_kill_with_cleaned_files_written_keeps_the_old_segments) {
    for (int i = 0; i < 10; ++i) {
        put_model("k" + std::to_string(i % 3), "v" + std::to_string(i));
    }
    roll();
    auto plan = l->plan_cleaning(0, now_ms);
    compaction::offset_map map(1 << 20, 0.9);
    auto out = compaction::clean_log(plan, map, {now_ms, nullptr, nullptr});
    ASSERT_TRUE(out);
    ASSERT_TRUE(has_suffix(".log.cleaned"));
    crash_and_reload();
    EXPECT_FALSE(has_suffix(".cleaned"));
    EXPECT_EQ(read_all().size(), 10u);
    check_against_model();
}

TEST_F(cleaner_crash, a_kill_after_the_rename_to_swap_completes_the_swap_on_load) {
    for (int i = 0; i < 12; ++i) {
        put_model("k" + std::to_string(i % 3), "v" + std::to_string(i));
        if (i % 4 == 3) {
            roll();
        }
    }
    auto plan = l->plan_cleaning(0, now_ms);
    compaction::offset_map map(1 << 20, 0.9);
    auto out = compaction::clean_log(plan, map, {now_ms, nullptr, nullptr});
    ASSERT_TRUE(out);
    ASSERT_EQ(out->segments.size(), 1u);
    ASSERT_EQ(out->segments[0].replaces.size(), 3u);
    ASSERT_TRUE(out->segments[0].segment->change_suffix(swap_suffix));
    // Killed while the old segments were being renamed: one already went.
    auto second = path_join(dir, segment_file_name(out->segments[0].replaces[1], log_suffix));
    ASSERT_EQ(::rename(second.c_str(), (second + ".deleted").c_str()), 0);
    crash_and_reload();
    EXPECT_FALSE(has_suffix(".swap"));
    EXPECT_EQ(l->segment_count(), 2u);
    EXPECT_EQ(read_all().size(), 3u);
    check_against_model();
}

// Random keyed writes and deletes, rolls, cleanings (some killed at a random
// step of the swap, some after it), with time passing delete horizons: after
// every reload the log agrees with the model.
TEST_F(cleaner_crash, randomised_model_with_kills) {
    config.delete_retention_ms = 50;
    l->update_config(config);
    int64_t removed = 0;
    int swaps_completed_on_load = 0;
    for (uint32_t seed = 1; seed <= 6; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::mt19937 rng(seed);
        int64_t first_dirty = 0;
        for (int op = 0; op < 250; ++op) {
            int dice = int(rng() % 100);
            std::string k = "k" + std::to_string(rng() % 12);
            if (dice < 60) {
                put_model(k, "s" + std::to_string(seed) + "-" + std::to_string(op));
            } else if (dice < 70) {
                put_model(k, std::nullopt);
            } else if (dice < 82) {
                roll();
            } else if (dice < 86) {
                now_ms += 40;
            } else {
                auto plan = l->plan_cleaning(first_dirty, now_ms);
                compaction::offset_map map(24 * size_t(8 + rng() % 40), 0.9);
                auto out = compaction::clean_log(plan, map, {now_ms, nullptr, nullptr});
                ASSERT_TRUE(out) << out.err().message;
                removed += out->stats.records_read - out->stats.records_kept;
                int kill = int(rng() % 4);
                if (kill == 0 || out->segments.empty()) {
                    auto swapped = l->swap_cleaned(*out, plan.generation, now_ms);
                    ASSERT_TRUE(swapped && *swapped);
                    first_dirty = out->cleaned_up_to;
                } else if (kill == 1) {
                    crash_and_reload();  // .cleaned files left behind
                } else {
                    // Killed after some groups reached .swap.
                    size_t n = 1 + rng() % out->segments.size();
                    for (size_t i = 0; i < n; ++i) {
                        ASSERT_TRUE(out->segments[i].segment->change_suffix(swap_suffix));
                    }
                    crash_and_reload();
                    swaps_completed_on_load++;
                }
                check_against_model();
                if (HasFatalFailure()) {
                    return;
                }
            }
        }
        crash_and_reload();
        check_against_model();
        if (HasFatalFailure()) {
            return;
        }
    }
    // The run did clean, and did complete swaps on load.
    EXPECT_GT(removed, 50);
    EXPECT_GT(swaps_completed_on_load, 2);
    EXPECT_LT(int64_t(read_all().size()), int64_t(written.size()) / 2);
}

}  // namespace
}  // namespace samsa::storage::testing
