// `samsa dump-log --files a.log,b.index,c.timeindex [--print-data-log]
// [--deep-iteration] [--verify-index-only]`: prints a segment's batches (and
// records), or an index's entries, the way kafka-dump-log.sh does, for
// operators and tests. Reads files directly: no broker needed.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/bytes.h"
#include "common/crc32c.h"
#include "record/batch_iterator.h"
#include "record/compression.h"
#include "tools/commands.h"

namespace samsa::tools {

namespace {

struct dump_log_options {
    std::vector<std::string> files;
    bool print_data_log = false;
    bool deep_iteration = false;
};

bool read_file(const std::string& path, bytes& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return false;
    }
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return true;
}

// The base offset from a segment file name: 20 digits.
int64_t base_offset_of(const std::string& path) {
    auto stem = std::filesystem::path(path).stem().string();
    try {
        return std::stoll(stem);
    } catch (...) {
        return 0;
    }
}

std::string printable(bytes_view b) {
    std::string s;
    for (uint8_t c : b) {
        s += (c >= 32 && c < 127) ? char(c) : '.';
    }
    return s;
}

int dump_index(const std::string& path, const bytes& data) {
    int64_t base = base_offset_of(path);
    for (size_t pos = 0; pos + 8 <= data.size(); pos += 8) {
        uint32_t rel = load_be32(data.data() + pos);
        uint32_t position = load_be32(data.data() + pos + 4);
        // Preallocated zeros past the last entry (an index not yet trimmed).
        if (pos > 0 && rel == 0 && position == 0) {
            break;
        }
        std::printf("offset: %lld position: %u\n", (long long)(base + rel), position);
    }
    return 0;
}

int dump_time_index(const std::string& path, const bytes& data) {
    int64_t base = base_offset_of(path);
    for (size_t pos = 0; pos + 12 <= data.size(); pos += 12) {
        int64_t ts = int64_t(load_be64(data.data() + pos));
        uint32_t rel = load_be32(data.data() + pos + 8);
        if (pos > 0 && ts == 0 && rel == 0) {
            break;
        }
        std::printf("timestamp: %lld offset: %lld\n", (long long)ts, (long long)(base + rel));
    }
    return 0;
}

int dump_segment(const dump_log_options& o, const std::string& path, const bytes& data) {
    std::printf("Log starting offset: %lld\n", (long long)base_offset_of(path));
    record::batch_iterator it(data);
    int rc = 0;
    while (auto b = it.next()) {
        const auto& h = b->header;
        uint32_t crc = crc32c(b->data.data() + record::attributes_offset,
                              b->data.size() - record::attributes_offset);
        int32_t last_seq =
            h.base_sequence < 0 ? -1 : int32_t(int64_t(h.base_sequence) + h.last_offset_delta);
        std::printf(
            "baseOffset: %lld lastOffset: %lld count: %d baseSequence: %d lastSequence: %d "
            "producerId: %lld producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %s "
            "isControl: %s position: %zu %s: %lld size: %zu magic: %d compresscodec: %s "
            "crc: %u isvalid: %s\n",
            (long long)h.base_offset, (long long)h.last_offset(), h.records_count, h.base_sequence,
            last_seq, (long long)h.producer_id, h.producer_epoch, h.partition_leader_epoch,
            h.is_transactional() ? "true" : "false", h.is_control() ? "true" : "false", b->position,
            h.timestamp_type() == record::timestamp_type::log_append_time ? "LogAppendTime"
                                                                          : "CreateTime",
            (long long)h.max_timestamp, b->data.size(), h.magic,
            std::string(record::compression_name(h.compression())).c_str(), h.crc,
            crc == h.crc ? "true" : "false");
        if (!o.print_data_log && !o.deep_iteration) {
            continue;
        }
        auto records = record::record_iterator::open(b->data);
        if (!records) {
            std::fprintf(stderr, "%s: batch at position %zu: %s\n", path.c_str(), b->position,
                         records.err().message.c_str());
            rc = 1;
            continue;
        }
        record::record r;
        for (;;) {
            auto more = records->next(r);
            if (!more) {
                std::fprintf(stderr, "%s: record in batch at %zu: %s\n", path.c_str(), b->position,
                             more.err().message.c_str());
                rc = 1;
                break;
            }
            if (!*more) {
                break;
            }
            std::string header_keys;
            for (const auto& hd : r.headers) {
                header_keys += (header_keys.empty() ? "" : ",") + std::string(hd.key);
            }
            std::printf(
                "| offset: %lld %s: %lld keySize: %d valueSize: %d sequence: %d "
                "headerKeys: [%s]",
                (long long)records->offset_of(r),
                h.timestamp_type() == record::timestamp_type::log_append_time ? "LogAppendTime"
                                                                              : "CreateTime",
                (long long)records->timestamp_of(r), r.key ? int(r.key->size()) : -1,
                r.value ? int(r.value->size()) : -1,
                h.base_sequence < 0 ? -1 : h.base_sequence + r.offset_delta, header_keys.c_str());
            if (o.print_data_log) {
                if (r.key) {
                    std::printf(" key: %s", printable(*r.key).c_str());
                }
                std::printf(" payload: %s", r.value ? printable(*r.value).c_str() : "null");
            }
            std::printf("\n");
        }
    }
    if (it.stop() != record::batch_stop::end) {
        std::printf("Found %zu invalid bytes at the end of %s (%s)\n", data.size() - it.position(),
                    path.c_str(),
                    it.stop() == record::batch_stop::truncated ? "truncated batch"
                                                               : it.stop_error().message.c_str());
    }
    return rc;
}

int run(const dump_log_options& o) {
    int rc = 0;
    for (const auto& path : o.files) {
        bytes data;
        if (!read_file(path, data)) {
            std::fprintf(stderr, "error: cannot read %s\n", path.c_str());
            rc = 1;
            continue;
        }
        std::printf("Dumping %s\n", path.c_str());
        auto ext = std::filesystem::path(path).extension().string();
        if (ext == ".log") {
            rc |= dump_segment(o, path, data);
        } else if (ext == ".index") {
            rc |= dump_index(path, data);
        } else if (ext == ".timeindex") {
            rc |= dump_time_index(path, data);
        } else {
            std::fprintf(stderr, "error: %s is not a .log, .index or .timeindex file\n",
                         path.c_str());
            rc = 1;
        }
    }
    return rc;
}

}  // namespace

tool_command add_dump_log_command(CLI::App& app) {
    auto o = std::make_shared<dump_log_options>();
    auto* cmd =
        add_verb(app, "dump-log", "Print the batches of a segment or the entries of an index");
    cmd->add_option("--files,files", o->files, "Comma-separated .log/.index/.timeindex files")
        ->required()
        ->delimiter(',');
    cmd->add_flag("--print-data-log", o->print_data_log, "Print each record's key and payload");
    cmd->add_flag("--deep-iteration", o->deep_iteration,
                  "Print every record, not just batch headers");
    return {cmd, [o] { return run(*o); }};
}

}  // namespace samsa::tools
