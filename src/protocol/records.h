#pragma once
// The value of a `records` field (Produce, Fetch, ...): a nullable blob of
// record batches that the protocol layer never copies.
//  * Decoded from a request it views the request frame: the frame must outlive it
//    (handlers keep the frame until they have answered).
//  * In a response it is a chain of memory pieces and file ranges; the connection
//    sends file ranges with sendfile(2) on plaintext listeners (docs/architecture.md, "Fetch").
#include <cstdint>
#include <memory>
#include <vector>

#include "common/bytes.h"

namespace samsa::protocol {

// A byte range of an open file. `keepalive` holds whatever keeps `fd` open
// (the segment) until the response has been sent.
struct file_range {
    int fd = -1;
    uint64_t offset = 0;
    uint32_t length = 0;
    std::shared_ptr<const void> keepalive;
};

struct records_piece {
    bytes_view memory;  // used when !is_file
    file_range file;
    bool is_file = false;
};

class records {
  public:
    records() = default;  // null
    static records empty() {
        records r;
        r._null = false;
        return r;
    }
    // Views `b`; `owner`, if given, keeps the bytes alive.
    static records view(bytes_view b, std::shared_ptr<const void> owner = {}) {
        records r;
        r._null = false;
        r.append(b, std::move(owner));
        return r;
    }

    bool is_null() const { return _null; }
    uint64_t size() const { return _size; }
    const std::vector<records_piece>& pieces() const { return _pieces; }

    void append(bytes_view b, std::shared_ptr<const void> owner = {}) {
        _null = false;
        if (b.empty()) {
            return;
        }
        _pieces.push_back({b, {}, false});
        _size += b.size();
        if (owner) {
            _owners.push_back(std::move(owner));
        }
    }
    void append(file_range f) {
        _null = false;
        if (f.length == 0) {
            return;
        }
        _size += f.length;
        _pieces.push_back({{}, std::move(f), true});
    }
    // The bytes when the value is a single memory piece (decoded requests).
    bytes_view contiguous() const {
        if (_pieces.size() == 1 && !_pieces[0].is_file) {
            return _pieces[0].memory;
        }
        return {};
    }
    bool has_files() const {
        for (const auto& p : _pieces) {
            if (p.is_file) {
                return true;
            }
        }
        return false;
    }

    // Equal when both are null, or both hold the same bytes (memory pieces only).
    bool operator==(const records& o) const;

  private:
    std::vector<records_piece> _pieces;
    std::vector<std::shared_ptr<const void>> _owners;
    uint64_t _size = 0;
    bool _null = true;
};

}  // namespace samsa::protocol
