#include "storage/index_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace samsa::storage {

namespace {

// Sparse, as Kafka's AbstractIndex does with RandomAccessFile.setLength: a
// preallocated 10 MiB index costs no disk until entries are written into it
// (push_back reserves real blocks ahead of them).
status preallocate(const file_handle& f, int64_t size) {
    return f.truncate(size);
}

// Real blocks are reserved this far ahead of the entries: one page, so an
// index's disk use follows its entries.
constexpr int64_t k_allocation_chunk = 4096;

}  // namespace

index_file::index_file(file_handle f, uint8_t* map, size_t map_bytes, size_t entry_size,
                       size_t max_entries, int64_t file_size)
    : _file(std::move(f)),
      _map(map),
      _map_bytes(map_bytes),
      _entry_size(entry_size),
      _max_entries(max_entries),
      _file_size(file_size) {}

index_file::~index_file() {
    if (_map) {
        ::munmap(_map, _map_bytes);
    }
}

result<std::unique_ptr<index_file>> index_file::open(const std::string& path, size_t entry_size,
                                                     int64_t max_bytes, bool preallocate_new) {
    auto f = file_handle::open(path, O_RDWR | O_CREAT);
    if (!f) {
        return f.err();
    }
    auto size = f->size();
    if (!size) {
        return size.err();
    }
    size_t max_entries = size_t(std::max<int64_t>(max_bytes, int64_t(entry_size))) / entry_size;
    int64_t max_file = int64_t(max_entries * entry_size);
    int64_t file_size = *size;
    if (file_size == 0 && preallocate_new) {
        if (auto s = preallocate(*f, max_file); !s) {
            return s.err();
        }
        file_size = max_file;
    }
    size_t map_bytes = size_t(std::max(max_file, file_size));
    void* m = ::mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd(), 0);
    if (m == MAP_FAILED) {
        return io_error("mmap", path, errno);
    }
    // Lookups jump around and appends touch one page at a time: a fault must
    // map that page only. With the default readahead a fault on the sparse,
    // preallocated file read ahead over holes, and zeroing them cost about
    // 7 ms of CPU per index, at the first entry of every new segment (15 s for
    // 1,000 partitions' first entries; bench/many_partitions_bench.sh).
    ::madvise(m, map_bytes, MADV_RANDOM);
    auto out = std::unique_ptr<index_file>(new index_file(
        std::move(*f), static_cast<uint8_t*>(m), map_bytes, entry_size, max_entries, file_size));
    out->_was_empty = *size == 0;
    return out;
}

size_t index_file::next_data_slot(size_t from) const {
    const size_t slots = file_slots();
    if (from >= slots) {
        return slots;
    }
    const off_t at = ::lseek(_file.fd(), off_t(from * _entry_size), SEEK_DATA);
    if (at < 0) {
        return errno == ENXIO ? slots : from;  // ENXIO: nothing but holes after it
    }
    return std::min(slots, std::max(from, size_t(at) / _entry_size));
}

size_t index_file::data_end_slot(size_t from) const {
    const size_t slots = file_slots();
    if (from >= slots) {
        return slots;
    }
    const off_t at = ::lseek(_file.fd(), off_t(from * _entry_size), SEEK_HOLE);
    if (at < 0) {
        return slots;
    }
    return std::min(slots, (size_t(at) + _entry_size - 1) / _entry_size);
}

std::optional<size_t> index_file::first_nonzero_slot(size_t from) const {
    const size_t slots = file_slots();
    for (size_t i = next_data_slot(from); i < slots; i = next_data_slot(i)) {
        const size_t end = std::max(i + 1, data_end_slot(i));
        for (; i < end; ++i) {
            const uint8_t* p = entry_ptr(i);
            if (std::any_of(p, p + _entry_size, [](uint8_t b) { return b != 0; })) {
                return i;
            }
        }
    }
    return std::nullopt;
}

status index_file::push_back(const uint8_t* entry) {
    const int64_t end = int64_t((_entries + 1) * _entry_size);
    if (end > _allocated) {
        // A store into a hole of a mapped file on a full disk is a SIGBUS, not
        // an error: reserve the blocks first, where ENOSPC is a value.
        int64_t want = std::min(
            _file_size, (end + k_allocation_chunk - 1) / k_allocation_chunk * k_allocation_chunk);
        if (want < end) {
            return error{error_code::kafka_storage_error, "index file too small: " + path()};
        }
        int rc = ::posix_fallocate(_file.fd(), _allocated, want - _allocated);
        if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) {
            return io_error("fallocate", path(), rc);
        }
        _allocated = want;
    }
    std::memcpy(_map + _entries * _entry_size, entry, _entry_size);
    ++_entries;
    return {};
}

void index_file::set_entries(size_t n) {
    // Zero what is dropped so a crash cannot resurrect it as valid entries.
    if (n < _entries) {
        std::memset(_map + n * _entry_size, 0, (_entries - n) * _entry_size);
    }
    _entries = n;
}

status index_file::grow_to_max() {
    int64_t want = int64_t(_max_entries * _entry_size);
    if (_file_size >= want) {
        return {};
    }
    if (want > int64_t(_map_bytes)) {
        // Cannot happen: the mapping is at least max size from open().
        return error{error_code::kafka_storage_error, "index mapping too small: " + path()};
    }
    // Zero-fill: a trimmed file regrown must read as "no entry" past entries().
    if (auto s = preallocate(_file, want); !s) {
        return s;
    }
    _file_size = want;
    return {};
}

status index_file::trim_to_entries() {
    int64_t want = int64_t(_entries * _entry_size);
    if (_file_size == want) {
        return {};
    }
    if (auto s = _file.truncate(want); !s) {
        return s;
    }
    _file_size = want;
    _allocated = std::min(_allocated, want);  // regrowing leaves a hole again
    return {};
}

status index_file::rename(const std::string& new_path) {
    if (::rename(_file.path().c_str(), new_path.c_str()) != 0) {
        return io_error("rename", _file.path(), errno);
    }
    _file.set_path(new_path);
    return {};
}

status index_file::close(bool trim) {
    status result;
    if (trim && _file.is_open()) {
        result = trim_to_entries();
    }
    if (_map) {
        ::munmap(_map, _map_bytes);
        _map = nullptr;
    }
    auto s = _file.close();
    return result ? s : result;
}

}  // namespace samsa::storage
