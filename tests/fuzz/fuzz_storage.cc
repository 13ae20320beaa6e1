// libFuzzer target: the files a broker reads back from its log dirs. The
// first byte picks the file; the rest is its content (written to a fresh
// directory, then loaded as at startup):
//   0  recovery-point / log-start / replication offset checkpoint
//   1  leader-epoch-checkpoint
//   2  a producer state .snapshot
//   3  partition.metadata
//   4  a segment .log after an unclean shutdown (recovery reads every batch),
//      then every offset read back
//   5  a segment .log and its .index after a clean shutdown (no recovery;
//      the index is checked against the log), split at byte 1 of the input
//   6  the same with a .timeindex, then timestamp lookups
//   7  the same with a .txnindex, then aborted-transaction lookups
//   8  a segment .log loaded as in 4, rolled and cleaned as a compacted log
//      (the cleaner decodes every batch and record), then read back
//   9  a segment .log and a `.log.swap` beside it (a cleaning killed
//      mid-swap), split as in 5, loaded after an unclean shutdown
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "storage/checkpoint_file.h"
#include "storage/compaction/cleaner.h"
#include "storage/leader_epoch_cache.h"
#include "storage/log.h"
#include "storage/partition_metadata.h"
#include "storage/producer_state_snapshot.h"
#include "storage/segment_name.h"

using namespace samsa;
namespace fs = std::filesystem;

namespace {

struct scratch_dir {
    std::string path;
    scratch_dir() {
        std::string tmpl = (fs::temp_directory_path() / "samsa-fuzz-XXXXXX").string();
        path = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
    }
    ~scratch_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

void write(const std::string& path, const uint8_t* data, size_t size) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(data), std::streamsize(size));
}

void load_and_read(const std::string& dir, bool clean) {
    storage::log_open_options o;
    o.dir = dir;
    o.tp = {"fuzz", 0};
    o.config.segment_index_bytes = 64 * 1024;
    o.had_clean_shutdown = clean;
    auto l = storage::log::open(o);
    if (!l) {
        return;
    }
    auto& log = **l;
    for (int64_t offset = log.log_start_offset(); offset < log.log_end_offset();) {
        auto r = log.read(kafka_offset{offset}, 1 << 20, std::nullopt, true);
        if (!r || r->records.length == 0) {
            break;
        }
        offset += 1 + (log.log_end_offset() - offset) / 8;
    }
    for (int64_t ts : {int64_t(-2), int64_t(-1), int64_t(0), int64_t(1'700'000'000'000)}) {
        (void)log.offset_for_timestamp(ts);
    }
    (void)log.aborted_transactions(log.log_start_offset(), log.log_end_offset());
    (void)log.last_stable_offset();
    (void)log.close();
}

void clean_and_read(const std::string& dir) {
    storage::log_open_options o;
    o.dir = dir;
    o.tp = {"fuzz", 0};
    o.config.segment_index_bytes = 64 * 1024;
    o.config.cleanup_compact = true;
    o.config.delete_retention_ms = 0;
    auto l = storage::log::open(o);
    if (!l) {
        return;
    }
    auto& log = **l;
    log.update_high_watermark(log.log_end_offset());
    if (log.roll(0)) {
        auto plan = log.plan_cleaning(0, 0);
        storage::compaction::offset_map map(24 * 64, 0.9);
        auto out = storage::compaction::clean_log(plan, map, {1, nullptr, nullptr});
        if (out) {
            (void)log.swap_cleaned(*out, plan.generation, 1);
        }
    }
    (void)log.close();
    load_and_read(dir, true);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) {
        return 0;
    }
    scratch_dir d;
    if (d.path.empty()) {
        return 0;
    }
    const uint8_t mode = data[0] % 10;
    const uint8_t* body = data + 1;
    const size_t n = size - 1;
    const std::string file = d.path + "/file";
    switch (mode) {
        case 0:
            write(file, body, n);
            (void)storage::read_offset_checkpoint(file);
            break;
        case 1:
            write(file, body, n);
            (void)storage::leader_epoch_cache::load(file);
            break;
        case 2:
            (void)storage::decode_producer_snapshot(bytes_view(body, n));
            break;
        case 3:
            write(file, body, n);
            (void)storage::read_partition_metadata(file);
            break;
        default: {
            const std::string part = d.path + "/fuzz-0";
            fs::create_directories(part);
            const std::string base = part + "/" + storage::segment_file_name(0, "");
            if (mode == 4 || mode == 8 || n < 1) {
                write(base + std::string(storage::log_suffix), body, n);
                if (mode == 8) {
                    clean_and_read(part);
                } else {
                    load_and_read(part, false);
                }
                break;
            }
            // body[0] says where the .log ends and the index begins.
            size_t split = std::min<size_t>(n - 1, size_t(body[0]) * (n - 1) / 255);
            write(base + std::string(storage::log_suffix), body + 1, split);
            if (mode == 9) {
                write(base + std::string(storage::log_suffix) + std::string(storage::swap_suffix),
                      body + 1 + split, n - 1 - split);
                load_and_read(part, false);
                break;
            }
            auto suffix = mode == 5   ? storage::index_suffix
                          : mode == 6 ? storage::time_index_suffix
                                      : storage::txn_index_suffix;
            write(base + std::string(suffix), body + 1 + split, n - 1 - split);
            load_and_read(part, true);
            break;
        }
    }
    return 0;
}
