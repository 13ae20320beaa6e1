#include "common/config/meta_properties.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <set>
#include <system_error>

namespace samsa::config {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_temp_suffix = ".tmp";

error storage_error(std::string message) {
    return error{error_code::kafka_storage_error, std::move(message)};
}

error io_error(std::string_view what, const fs::path& p, int err) {
    return storage_error(fmt::format("{} {}: {}", what, p.string(), std::strerror(err)));
}

std::optional<int32_t> parse_int(std::string_view s) {
    int32_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) {
        return std::nullopt;
    }
    return v;
}

status write_all(int fd, std::string_view data, const fs::path& p) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return io_error("cannot write", p, errno);
        }
        data.remove_prefix(static_cast<size_t>(n));
    }
    return {};
}

status fsync_dir(const fs::path& dir) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return io_error("cannot open directory", dir, errno);
    }
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) {
        return io_error("cannot fsync directory", dir, err);
    }
    return {};
}

// Empty, or holding only what a crashed format or a fresh filesystem leaves behind.
result<bool> is_empty_dir(const fs::path& dir) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        auto name = it->path().filename().string();
        if (name == "lost+found" || name == std::string(k_meta_properties_file) + k_temp_suffix) {
            continue;
        }
        return false;
    }
    if (ec) {
        return io_error("cannot list directory", dir, ec.value());
    }
    return true;
}

std::string date_comment() {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%a %b %d %H:%M:%S UTC %Y", &tm);
    return buf;
}

uuid new_directory_id(std::set<uuid>& taken) {
    while (true) {
        uuid u = uuid::random();
        if (taken.insert(u).second) {
            return u;
        }
    }
}

}  // namespace

result<meta_properties> parse_meta_properties(const properties& props, std::string_view where) {
    auto bad = [&](std::string msg) {
        return error{error_code::invalid_config,
                     where.empty() ? msg : fmt::format("{}: {}", where, msg)};
    };
    meta_properties m;
    auto version = props.get("version");
    if (!version) {
        return bad("missing version");
    }
    auto v = parse_int(*version);
    if (!v) {
        return bad(fmt::format("invalid version '{}'", *version));
    }
    if (*v != 1) {
        return bad(
            fmt::format("version {} is not supported: Samsa reads KRaft meta.properties "
                        "(version=1); version 0 is written by ZooKeeper-mode Kafka",
                        *v));
    }
    m.version = *v;
    auto cluster = props.get("cluster.id");
    if (!cluster || cluster->empty()) {
        return bad("missing cluster.id");
    }
    m.cluster_id = *cluster;
    auto node = props.get("node.id");
    if (!node) {
        return bad("missing node.id");
    }
    auto n = parse_int(*node);
    if (!n || *n < 0) {
        return bad(fmt::format("invalid node.id '{}'", *node));
    }
    m.node_id = *n;
    if (auto dir = props.get("directory.id")) {
        auto u = uuid::parse(*dir);
        if (!u || u->is_zero()) {
            return bad(fmt::format("invalid directory.id '{}'", *dir));
        }
        m.directory_id = *u;
    }
    return m;
}

std::string format_meta_properties(const meta_properties& meta) {
    std::vector<std::pair<std::string, std::string>> entries;
    entries.emplace_back("cluster.id", meta.cluster_id);
    if (meta.directory_id) {
        entries.emplace_back("directory.id", meta.directory_id->to_string());
    }
    entries.emplace_back("node.id", std::to_string(meta.node_id));
    entries.emplace_back("version", std::to_string(meta.version));
    // Kafka's Properties.store header: an empty comment line, then the date.
    std::string out = "#\n#" + date_comment() + "\n";
    return out + format_properties(entries);
}

result<std::optional<meta_properties>> read_meta_properties(const fs::path& dir) {
    fs::path file = dir / k_meta_properties_file;
    std::error_code ec;
    if (!fs::exists(file, ec)) {
        if (ec) {
            return io_error("cannot access", file, ec.value());
        }
        return std::optional<meta_properties>();
    }
    auto props = load_properties_file(file);
    if (!props) {
        return storage_error(props.err().message);
    }
    auto meta = parse_meta_properties(*props, file.string());
    if (!meta) {
        return meta.err();
    }
    return std::optional<meta_properties>(std::move(*meta));
}

status write_meta_properties(const fs::path& dir, const meta_properties& meta) {
    fs::path file = dir / k_meta_properties_file;
    fs::path temp = dir / (std::string(k_meta_properties_file) + k_temp_suffix);
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        return io_error("cannot create", temp, errno);
    }
    status s = write_all(fd, format_meta_properties(meta), temp);
    if (s && ::fsync(fd) != 0) {
        s = io_error("cannot fsync", temp, errno);
    }
    if (::close(fd) != 0 && s) {
        s = io_error("cannot close", temp, errno);
    }
    if (!s) {
        ::unlink(temp.c_str());
        return s;
    }
    if (::rename(temp.c_str(), file.c_str()) != 0) {
        int err = errno;
        ::unlink(temp.c_str());
        return io_error("cannot rename to", file, err);
    }
    return fsync_dir(dir);
}

result<storage_identity> ensure_meta_properties(
    const std::vector<std::filesystem::path>& dirs, int32_t node_id,
    const std::optional<std::string>& wanted_cluster_id) {
    struct dir_state {
        fs::path dir;
        std::optional<meta_properties> meta;
    };
    std::vector<dir_state> states;
    std::set<fs::path> seen;
    for (const auto& d : dirs) {
        fs::path norm = d.lexically_normal();
        if (!norm.has_filename() && norm.has_parent_path()) {
            norm = norm.parent_path();  // "data/" -> "data"
        }
        std::error_code ec;
        fs::path key = fs::weakly_canonical(norm, ec);  // "a", "./a", "/abs/a" are one dir
        if (ec) {
            key = fs::absolute(norm, ec);
        }
        if (!seen.insert(key).second) {
            continue;
        }
        auto st = fs::status(norm, ec);
        if (ec && ec != std::errc::no_such_file_or_directory) {
            return io_error("cannot access log directory", norm, ec.value());
        }
        if (!fs::exists(st)) {
            states.push_back({norm, std::nullopt});
            continue;
        }
        if (!fs::is_directory(st)) {
            return storage_error(fmt::format("log directory {} is not a directory", norm.string()));
        }
        auto meta = read_meta_properties(norm);
        if (!meta) {
            return meta.err();
        }
        if (!*meta) {
            auto empty = is_empty_dir(norm);
            if (!empty) {
                return empty.err();
            }
            if (!*empty) {
                return error{
                    error_code::invalid_config,
                    fmt::format("log directory {} is not empty but has no meta.properties; "
                                "Samsa only formats empty directories. Move its contents "
                                "away or point log.dirs elsewhere.",
                                norm.string())};
            }
        } else if ((*meta)->node_id != node_id) {
            return error{
                error_code::invalid_config,
                fmt::format("Stored node id {} doesn't match the configured node id {} in "
                            "{}. If you moved your data, make sure your configured node id "
                            "matches. If you intend to create a new node, remove all data "
                            "in your data directories.",
                            (*meta)->node_id, node_id, norm.string())};
        }
        states.push_back({norm, std::move(*meta)});
    }

    std::string cluster_id;
    std::set<uuid> directory_ids;
    for (const auto& s : states) {
        if (!s.meta) {
            continue;
        }
        if (cluster_id.empty()) {
            cluster_id = s.meta->cluster_id;
        } else if (s.meta->cluster_id != cluster_id) {
            return error{error_code::inconsistent_cluster_id,
                         fmt::format("Invalid cluster.id in {}: expected {}, but read {}. The log "
                                     "directories belong to different clusters.",
                                     (s.dir / k_meta_properties_file).string(), cluster_id,
                                     s.meta->cluster_id)};
        }
        if (s.meta->directory_id && !directory_ids.insert(*s.meta->directory_id).second) {
            return storage_error(fmt::format("duplicate directory.id {} in {}",
                                             s.meta->directory_id->to_string(), s.dir.string()));
        }
    }
    if (wanted_cluster_id && !cluster_id.empty() && cluster_id != *wanted_cluster_id) {
        return error{error_code::inconsistent_cluster_id,
                     fmt::format("The log directories belong to cluster {}, not to the cluster "
                                 "{} that --cluster-id names.",
                                 cluster_id, *wanted_cluster_id)};
    }
    if (cluster_id.empty()) {
        cluster_id = wanted_cluster_id ? *wanted_cluster_id : uuid::random().to_string();
    }

    storage_identity out;
    out.cluster_id = cluster_id;
    for (auto& s : states) {
        log_dir_identity id;
        id.dir = s.dir;
        if (s.meta && s.meta->directory_id) {
            id.meta = *s.meta;
            out.dirs.push_back(std::move(id));
            continue;
        }
        if (s.meta) {
            id.meta = *s.meta;  // written before directory ids existed: add one
        } else {
            std::error_code ec;
            fs::create_directories(s.dir, ec);
            if (ec) {
                return io_error("cannot create log directory", s.dir, ec.value());
            }
            if (s.dir.has_parent_path()) {
                // Make the new directory entry itself durable.
                (void)fsync_dir(s.dir.parent_path());
            }
            id.meta.version = 1;
            id.meta.cluster_id = cluster_id;
            id.meta.node_id = node_id;
            id.created = true;
        }
        id.meta.directory_id = new_directory_id(directory_ids);
        if (auto w = write_meta_properties(s.dir, id.meta); !w) {
            return w.err();
        }
        out.dirs.push_back(std::move(id));
    }
    return out;
}

}  // namespace samsa::config
