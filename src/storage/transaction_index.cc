#include "storage/transaction_index.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "common/bytes.h"

namespace samsa::storage {

namespace {

constexpr int16_t entry_version = 0;

void encode(const aborted_txn& t, uint8_t* p) {
    store_be16(p, uint16_t(entry_version));
    store_be64(p + 2, uint64_t(t.producer_id));
    store_be64(p + 10, uint64_t(t.first_offset));
    store_be64(p + 18, uint64_t(t.last_offset));
    store_be64(p + 26, uint64_t(t.last_stable_offset));
}

aborted_txn decode(const uint8_t* p) {
    aborted_txn t;
    t.producer_id = int64_t(load_be64(p + 2));
    t.first_offset = int64_t(load_be64(p + 10));
    t.last_offset = int64_t(load_be64(p + 18));
    t.last_stable_offset = int64_t(load_be64(p + 26));
    return t;
}

}  // namespace

result<transaction_index> transaction_index::open(std::string path) {
    transaction_index idx;
    idx._path = std::move(path);
    if (::access(idx._path.c_str(), F_OK) != 0) {
        return idx;
    }
    bool missing = false;
    auto contents = read_whole_file(idx._path, &missing);
    if (!contents) {
        return contents.err();
    }
    const auto* p = reinterpret_cast<const uint8_t*>(contents->data());
    const size_t whole = contents->size() / entry_size * entry_size;
    for (size_t pos = 0; pos < whole; pos += entry_size) {
        auto t = decode(p + pos);
        if (int16_t(load_be16(p + pos)) != entry_version || t.first_offset > t.last_offset ||
            (!idx._entries.empty() && t.last_offset < idx._entries.back().last_offset)) {
            break;  // what follows a bad entry is not trusted: recovery re-adds it
        }
        const bool repeated = !idx._entries.empty() &&
                              idx._entries.back().producer_id == t.producer_id &&
                              idx._entries.back().first_offset == t.first_offset &&
                              idx._entries.back().last_offset == t.last_offset;
        if (!repeated) {
            idx._entries.push_back(t);
        }
    }
    if (idx._entries.size() * entry_size != contents->size()) {
        // A torn or bad tail: rewrite what was kept.
        auto f = file_handle::open(idx._path, O_RDWR | O_CREAT);
        if (!f) {
            return f.err();
        }
        bytes buf(idx._entries.size() * entry_size);
        for (size_t i = 0; i < idx._entries.size(); ++i) {
            encode(idx._entries[i], buf.data() + i * entry_size);
        }
        if (auto s = f->truncate(0); !s) {
            return s.err();
        }
        if (auto s = f->pwrite_all(buf.data(), buf.size(), 0); !s) {
            return s.err();
        }
        idx._file = std::move(*f);
    }
    return idx;
}

status transaction_index::ensure_open() {
    if (_file) {
        return {};
    }
    auto f = file_handle::open(_path, O_RDWR | O_CREAT);
    if (!f) {
        return f.err();
    }
    _file = std::move(*f);
    return {};
}

status transaction_index::append(const aborted_txn& t) {
    for (auto it = _entries.rbegin(); it != _entries.rend(); ++it) {
        // The same transaction (a replay after recovery re-finds it; the
        // last stable offset it computes then may differ): kept as first
        // written.
        if (it->producer_id == t.producer_id && it->first_offset == t.first_offset &&
            it->last_offset == t.last_offset) {
            return {};
        }
        if (it->last_offset < t.last_offset) {
            break;
        }
    }
    if (!_entries.empty() && t.last_offset < _entries.back().last_offset) {
        return error{error_code::corrupt_message, "aborted transaction ending at " +
                                                      std::to_string(t.last_offset) +
                                                      " is below the last one in " + _path};
    }
    if (auto s = ensure_open(); !s) {
        return s;
    }
    uint8_t buf[entry_size];
    encode(t, buf);
    if (auto s = _file->pwrite_all(buf, entry_size, int64_t(_entries.size() * entry_size)); !s) {
        return s;
    }
    _entries.push_back(t);
    return {};
}

status transaction_index::truncate_to(int64_t offset) {
    size_t keep = 0;
    while (keep < _entries.size() && _entries[keep].last_offset < offset) {
        ++keep;
    }
    if (keep == _entries.size() && !_file) {
        return {};
    }
    _entries.resize(keep);
    if (!_file && ::access(_path.c_str(), F_OK) != 0) {
        return {};
    }
    if (auto s = ensure_open(); !s) {
        return s;
    }
    return _file->truncate(int64_t(keep * entry_size));
}

void transaction_index::collect(int64_t from, int64_t upper, std::vector<aborted_txn>& out) const {
    for (const auto& t : _entries) {
        if (t.last_offset >= from && t.first_offset < upper) {
            out.push_back(t);
        }
    }
}

status transaction_index::flush() const {
    return _file ? _file->datasync() : status();
}

status transaction_index::close() {
    if (!_file) {
        return {};
    }
    auto s = _file->close();
    _file.reset();
    return s;
}

void transaction_index::set_path(const std::string& new_path) {
    _path = new_path;
    if (_file) {
        _file->set_path(new_path);
    }
}

status transaction_index::rename(const std::string& new_path) {
    if (::access(_path.c_str(), F_OK) == 0 && ::rename(_path.c_str(), new_path.c_str()) != 0) {
        return io_error("rename", _path, errno);
    }
    _path = new_path;
    if (_file) {
        _file->set_path(new_path);
    }
    return {};
}

status transaction_index::delete_file() {
    if (::unlink(_path.c_str()) != 0 && errno != ENOENT) {
        return io_error("unlink", _path, errno);
    }
    _file.reset();
    return {};
}

}  // namespace samsa::storage
