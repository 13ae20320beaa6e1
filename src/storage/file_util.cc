#include "storage/file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace samsa::storage {

error io_error(std::string_view op, std::string_view path, int err) {
    std::string msg;
    msg.reserve(op.size() + path.size() + 40);
    msg.append(op).append(" ").append(path).append(": ").append(std::strerror(err));
    return error{error_code::kafka_storage_error, std::move(msg)};
}

file_handle& file_handle::operator=(file_handle&& o) noexcept {
    if (this != &o) {
        if (_fd >= 0) {
            ::close(_fd);
        }
        _fd = std::exchange(o._fd, -1);
        _path = std::move(o._path);
    }
    return *this;
}

file_handle::~file_handle() {
    if (_fd >= 0) {
        ::close(_fd);
    }
}

result<file_handle> file_handle::open(const std::string& path, int flags, int mode) {
    int fd;
    do {
        fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        return io_error("open", path, errno);
    }
    return file_handle(fd, path);
}

result<int64_t> file_handle::size() const {
    struct stat st;
    if (::fstat(_fd, &st) != 0) {
        return io_error("fstat", _path, errno);
    }
    return int64_t(st.st_size);
}

status file_handle::pwrite_all(const void* data, size_t len, int64_t offset) const {
    auto* p = static_cast<const uint8_t*>(data);
    while (len > 0) {
        ssize_t n = ::pwrite(_fd, p, len, offset);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return io_error("pwrite", _path, errno);
        }
        p += n;
        len -= size_t(n);
        offset += n;
    }
    return {};
}

result<size_t> file_handle::pread_full(void* data, size_t len, int64_t offset) const {
    auto* p = static_cast<uint8_t*>(data);
    size_t done = 0;
    while (done < len) {
        ssize_t n = ::pread(_fd, p + done, len - done, offset + int64_t(done));
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return io_error("pread", _path, errno);
        }
        if (n == 0) {
            break;
        }
        done += size_t(n);
    }
    return done;
}

status file_handle::truncate(int64_t size) const {
    int rc;
    do {
        rc = ::ftruncate(_fd, size);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        return io_error("ftruncate", _path, errno);
    }
    return {};
}

status file_handle::datasync() const {
    if (::fdatasync(_fd) != 0) {
        return io_error("fdatasync", _path, errno);
    }
    return {};
}

status file_handle::close() {
    if (_fd < 0) {
        return {};
    }
    int fd = std::exchange(_fd, -1);
    // close(2) must not be retried on EINTR on Linux: the fd is gone either way.
    if (::close(fd) != 0 && errno != EINTR) {
        return io_error("close", _path, errno);
    }
    return {};
}

status fsync_dir(const std::string& dir) {
    auto f = file_handle::open(dir, O_RDONLY | O_DIRECTORY);
    if (!f) {
        return f.err();
    }
    if (::fsync(f->fd()) != 0) {
        return io_error("fsync", dir, errno);
    }
    return {};
}

std::string path_join(std::string_view dir, std::string_view name) {
    std::string p(dir);
    if (!p.empty() && p.back() != '/') {
        p += '/';
    }
    p.append(name);
    return p;
}

static std::string parent_dir(const std::string& path) {
    auto slash = path.rfind('/');
    if (slash == std::string::npos) {
        return ".";
    }
    if (slash == 0) {
        return "/";
    }
    return path.substr(0, slash);
}

status write_file_atomically(const std::string& path, std::string_view contents) {
    std::string tmp = path + ".tmp";
    {
        auto f = file_handle::open(tmp, O_WRONLY | O_CREAT | O_TRUNC);
        if (!f) {
            return f.err();
        }
        if (auto s = f->pwrite_all(contents.data(), contents.size(), 0); !s) {
            return s;
        }
        if (::fsync(f->fd()) != 0) {
            return io_error("fsync", tmp, errno);
        }
        if (auto s = f->close(); !s) {
            return s;
        }
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        return io_error("rename", tmp, errno);
    }
    return fsync_dir(parent_dir(path));
}

result<std::string> read_whole_file(const std::string& path, bool* missing) {
    if (missing) {
        *missing = false;
    }
    int fd;
    do {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        if (missing && errno == ENOENT) {
            *missing = true;
            return std::string();
        }
        return io_error("open", path, errno);
    }
    file_handle f(fd, path);
    std::string out;
    char buf[8192];
    int64_t off = 0;
    for (;;) {
        auto n = f.pread_full(buf, sizeof buf, off);
        if (!n) {
            return n.err();
        }
        out.append(buf, *n);
        off += int64_t(*n);
        if (*n < sizeof buf) {
            break;
        }
    }
    return out;
}

}  // namespace samsa::storage
