#pragma once
// Thin, error-as-value wrappers over the POSIX file calls the storage room
// uses. Every failure becomes KAFKA_STORAGE_ERROR with "<op> <path>: <strerror>"
// as its message, which is what Kafka answers when a log dir fails.
//
// Thread safety: a file_handle is an fd; pread/pwrite/fdatasync on one fd may run
// on different threads at once (the kernel orders them). Closing is the owner's.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "common/bytes.h"
#include "common/result.h"

namespace samsa::storage {

// KAFKA_STORAGE_ERROR carrying errno's text.
error io_error(std::string_view op, std::string_view path, int err);

// An owned file descriptor, closed on destruction. Move-only.
class file_handle {
  public:
    file_handle() = default;
    file_handle(int fd, std::string path) : _fd(fd), _path(std::move(path)) {}
    file_handle(file_handle&& o) noexcept
        : _fd(std::exchange(o._fd, -1)), _path(std::move(o._path)) {}
    file_handle& operator=(file_handle&& o) noexcept;
    file_handle(const file_handle&) = delete;
    file_handle& operator=(const file_handle&) = delete;
    ~file_handle();

    // open(2) with O_CLOEXEC added.
    static result<file_handle> open(const std::string& path, int flags, int mode = 0644);

    int fd() const { return _fd; }
    bool is_open() const { return _fd >= 0; }
    const std::string& path() const { return _path; }
    // The path is informational (error messages); renaming the file updates it.
    void set_path(std::string p) { _path = std::move(p); }

    result<int64_t> size() const;
    // Writes all of [data, data+len) at `offset`, retrying short writes and EINTR.
    status pwrite_all(const void* data, size_t len, int64_t offset) const;
    // Reads up to `len` bytes at `offset`; fewer only at end of file.
    result<size_t> pread_full(void* data, size_t len, int64_t offset) const;
    status truncate(int64_t size) const;
    // fdatasync(2): data and the metadata needed to read it back (file size).
    status datasync() const;
    status close();

  private:
    int _fd = -1;
    std::string _path;
};

// fsync of a directory, so that a create/rename/unlink inside it is durable.
status fsync_dir(const std::string& dir);
// Writes `contents` to `path` atomically: `path`.tmp, fsync, rename, fsync dir.
// A crash leaves either the old file or the new one, never a mix.
status write_file_atomically(const std::string& path, std::string_view contents);
// The whole file; error with code KAFKA_STORAGE_ERROR, or `missing` set when
// the file does not exist (then the result holds an empty string).
result<std::string> read_whole_file(const std::string& path, bool* missing = nullptr);

std::string path_join(std::string_view dir, std::string_view name);

}  // namespace samsa::storage
