#include "coordinator/group/consumer_protocol.h"

#include <algorithm>

#include "protocol/reader.h"
#include "protocol/writer.h"

namespace samsa::coordinator {

namespace {

std::optional<int16_t> read_version(protocol::reader& r) {
    const int16_t version = r.read_int16();
    if (!r.ok() || version < 0) {
        return std::nullopt;
    }
    return version;
}

template <typename T>
std::optional<T> decode_versioned(bytes_view data) {
    protocol::reader r(data);
    auto version = read_version(r);
    if (!version) {
        return std::nullopt;
    }
    T out;
    out.decode(r, std::min<int16_t>(*version, T::max_version));
    if (!r.ok()) {
        return std::nullopt;
    }
    return out;
}

}  // namespace

std::optional<int16_t> consumer_protocol_version(bytes_view data) {
    protocol::reader r(data);
    return read_version(r);
}

std::optional<protocol::consumer_protocol_subscription> decode_consumer_subscription(
    bytes_view data) {
    return decode_versioned<protocol::consumer_protocol_subscription>(data);
}

std::optional<protocol::consumer_protocol_assignment> decode_consumer_assignment(bytes_view data) {
    return decode_versioned<protocol::consumer_protocol_assignment>(data);
}

bytes encode_consumer_assignment(const topic_assignment& assigned,
                                 const std::map<uuid, std::string>& names, int16_t version) {
    using assignment = protocol::consumer_protocol_assignment;
    version = std::clamp<int16_t>(version, assignment::min_version, assignment::max_version);
    assignment a;
    for (const auto& [id, parts] : assigned) {
        auto name = names.find(id);
        if (name == names.end() || parts.empty()) {
            continue;
        }
        auto& tp = a.assigned_partitions.emplace_back();
        tp.topic = name->second;
        tp.partitions.assign(parts.begin(), parts.end());
    }
    protocol::writer w;
    w.write_int16(version);
    a.encode(w, version);
    return std::move(w.buffer());
}

}  // namespace samsa::coordinator
