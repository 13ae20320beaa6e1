#include "raft/raft_wire.h"

#include <type_traits>

#include "protocol/generated/begin_quorum_epoch_request.h"
#include "protocol/generated/begin_quorum_epoch_response.h"
#include "protocol/generated/end_quorum_epoch_request.h"
#include "protocol/generated/end_quorum_epoch_response.h"
#include "protocol/generated/fetch_snapshot_request.h"
#include "protocol/generated/fetch_snapshot_response.h"
#include "protocol/generated/vote_request.h"
#include "protocol/generated/vote_response.h"
#include "raft/raft_batch_codec.h"

namespace samsa::raft {

namespace {

constexpr int16_t k_fetch = 1;
constexpr int16_t k_vote = 52;
constexpr int16_t k_begin = 53;
constexpr int16_t k_end = 54;
constexpr int16_t k_fetch_snapshot = 59;

// The versions our requests go out in: the first flexible ones, which every
// KRaft replica reads. Fetch v13 names the partition by topic id and carries
// the KRaft tagged fields (diverging epoch, current leader, snapshot id).
// Vote v2 carries PreVote (KIP-996).
constexpr int16_t k_out_vote = 2;
constexpr int16_t k_out_begin = 0;
constexpr int16_t k_out_end = 0;
constexpr int16_t k_out_fetch = 13;
constexpr int16_t k_out_fetch_snapshot = 0;

const std::string k_topic(metadata_topic_name);

template <typename M>
bytes encode(const M& m, int16_t version) {
    protocol::writer w;
    m.encode(w, version);
    return std::move(w.buffer());
}

template <typename M>
result<M> decode(bytes_view body, int16_t version) {
    M m;
    protocol::reader r(body);
    m.decode(r, version);
    if (!r.ok()) {
        return error(error_code::corrupt_message, "malformed KRaft message");
    }
    return m;
}

error_code code_of(int16_t wire) {
    return static_cast<error_code>(wire);
}

leader_and_epoch leader_of(node_id id, int32_t epoch) {
    return {id, raft_epoch{epoch}};
}

error not_metadata_partition() {
    return error(error_code::corrupt_message, "KRaft message is not for __cluster_metadata-0");
}

// The single partition of a KRaft message, or nullptr when it names another.
template <typename Topics>
auto* only_partition(Topics& topics) {
    using partition_t = std::remove_reference_t<decltype(topics.front().partitions.front())>;
    if (topics.size() != 1 || topics.front().partitions.size() != 1) {
        return static_cast<partition_t*>(nullptr);
    }
    return &topics.front().partitions.front();
}

// The single partition of a Vote / BeginQuorumEpoch / EndQuorumEpoch request
// when it is __cluster_metadata-0, else nullptr. Kafka's Raft client answers
// any other request INVALID_REQUEST at the top level ("until multi-raft").
template <typename Topics>
auto* only_metadata_partition(Topics& topics) {
    auto* p = only_partition(topics);
    using partition_t = std::remove_reference_t<decltype(*p)>;
    if (!p || topics.front().topic_name != metadata_topic_name || p->partition_index != 0) {
        return static_cast<partition_t*>(nullptr);
    }
    return p;
}

error not_the_metadata_partition_request() {
    return error(error_code::invalid_request, "the request is not for __cluster_metadata-0 alone");
}

// Response-level error first (e.g. INCONSISTENT_CLUSTER_ID), then the
// partition's.
template <typename Response>
result<raft_message> decode_leader_answer(bytes_view body, int16_t version, int32_t corr,
                                          auto make) {
    auto r = decode<Response>(body, version);
    if (!r) {
        return r.err();
    }
    using partition_t = std::remove_reference_t<decltype(r->topics.front().partitions.front())>;
    if (r->error_code != 0) {
        return raft_message(make(corr, code_of(r->error_code), leader_and_epoch{},
                                 static_cast<const partition_t*>(nullptr)));
    }
    const partition_t* p = only_partition(r->topics);
    if (!p) {
        return not_metadata_partition();
    }
    return raft_message(
        make(corr, code_of(p->error_code), leader_of(p->leader_id, p->leader_epoch), p));
}

}  // namespace

uuid metadata_topic_id() {
    uuid u;
    u.data[15] = 1;
    return u;
}

int16_t raft_api_key(const raft_message& m) {
    return std::visit(
        [](const auto& v) -> int16_t {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, vote_request> || std::is_same_v<T, vote_response>) {
                return k_vote;
            } else if constexpr (std::is_same_v<T, begin_quorum_epoch_request> ||
                                 std::is_same_v<T, begin_quorum_epoch_response>) {
                return k_begin;
            } else if constexpr (std::is_same_v<T, end_quorum_epoch_request> ||
                                 std::is_same_v<T, end_quorum_epoch_response>) {
                return k_end;
            } else if constexpr (std::is_same_v<T, fetch_request> ||
                                 std::is_same_v<T, fetch_response>) {
                return k_fetch;
            } else {
                return k_fetch_snapshot;
            }
        },
        m);
}

bool is_raft_api(int16_t api_key) {
    return api_key == k_vote || api_key == k_begin || api_key == k_end ||
           api_key == k_fetch_snapshot;
}

// ---- our requests out, their answers in

wire_request encode_raft_request(const raft_message& m, const std::string& cluster_id) {
    wire_request out;
    out.api_key = raft_api_key(m);
    if (auto* v = std::get_if<vote_request>(&m)) {
        protocol::vote_request w;
        w.cluster_id = cluster_id;
        auto& t = w.topics.emplace_back();
        t.topic_name = k_topic;
        auto& p = t.partitions.emplace_back();
        p.candidate_epoch = v->candidate_epoch.value();
        p.candidate_id = v->candidate_id;
        p.last_offset_epoch = v->last_offset.epoch.value();
        p.last_offset = v->last_offset.offset.value();
        p.pre_vote = v->pre_vote;
        out.api_version = k_out_vote;
        out.body = encode(w, out.api_version);
    } else if (auto* b = std::get_if<begin_quorum_epoch_request>(&m)) {
        protocol::begin_quorum_epoch_request w;
        w.cluster_id = cluster_id;
        auto& t = w.topics.emplace_back();
        t.topic_name = k_topic;
        auto& p = t.partitions.emplace_back();
        p.leader_id = b->leader.leader;
        p.leader_epoch = b->leader.epoch.value();
        out.api_version = k_out_begin;
        out.body = encode(w, out.api_version);
    } else if (auto* e = std::get_if<end_quorum_epoch_request>(&m)) {
        protocol::end_quorum_epoch_request w;
        w.cluster_id = cluster_id;
        auto& t = w.topics.emplace_back();
        t.topic_name = k_topic;
        auto& p = t.partitions.emplace_back();
        p.leader_id = e->leader.leader;
        p.leader_epoch = e->leader.epoch.value();
        for (auto s : e->preferred_successors) {
            p.preferred_successors.push_back(s.value());
        }
        out.api_version = k_out_end;
        out.body = encode(w, out.api_version);
    } else if (auto* f = std::get_if<fetch_request>(&m)) {
        protocol::fetch_request w;
        w.cluster_id = cluster_id;
        w.replica_id = f->replica_id;
        w.max_wait_ms = int32_t(f->max_wait.count());
        w.min_bytes = 0;
        w.max_bytes = f->max_bytes;
        auto& t = w.topics.emplace_back();
        t.topic = k_topic;
        t.topic_id = metadata_topic_id();
        auto& p = t.partitions.emplace_back();
        p.current_leader_epoch = f->current_leader_epoch.value();
        p.fetch_offset = f->fetch_offset.value();
        p.last_fetched_epoch = f->last_fetched_epoch.value();
        p.partition_max_bytes = f->max_bytes;
        out.api_version = k_out_fetch;
        out.body = encode(w, out.api_version);
    } else if (auto* s = std::get_if<fetch_snapshot_request>(&m)) {
        protocol::fetch_snapshot_request w;
        w.cluster_id = cluster_id;
        w.replica_id = s->replica_id;
        w.max_bytes = s->max_bytes;
        auto& t = w.topics.emplace_back();
        t.name = k_topic;
        auto& p = t.partitions.emplace_back();
        p.current_leader_epoch = s->current_leader_epoch.value();
        p.snapshot_id.end_offset = s->snapshot_id.offset.value();
        p.snapshot_id.epoch = s->snapshot_id.epoch.value();
        p.position = s->position;
        out.api_version = k_out_fetch_snapshot;
        out.body = encode(w, out.api_version);
    }
    return out;
}

result<raft_message> decode_raft_response(int16_t api_key, int16_t version, bytes_view body,
                                          int32_t corr) {
    switch (api_key) {
        case k_vote:
            return decode_leader_answer<protocol::vote_response>(
                body, version, corr, [](int32_t c, error_code ec, leader_and_epoch l, auto* p) {
                    return vote_response{c, ec, l, p != nullptr && p->vote_granted};
                });
        case k_begin:
            return decode_leader_answer<protocol::begin_quorum_epoch_response>(
                body, version, corr, [](int32_t c, error_code ec, leader_and_epoch l, auto*) {
                    return begin_quorum_epoch_response{c, ec, l};
                });
        case k_end:
            return decode_leader_answer<protocol::end_quorum_epoch_response>(
                body, version, corr, [](int32_t c, error_code ec, leader_and_epoch l, auto*) {
                    return end_quorum_epoch_response{c, ec, l};
                });
        case k_fetch: {
            auto r = decode<protocol::fetch_response>(body, version);
            if (!r) {
                return r.err();
            }
            fetch_response out;
            out.correlation_id = corr;
            if (r->error_code != 0) {
                out.error = code_of(r->error_code);
                return raft_message(std::move(out));
            }
            if (r->responses.size() != 1 || r->responses.front().partitions.size() != 1) {
                return not_metadata_partition();
            }
            const auto& p = r->responses.front().partitions.front();
            out.error = code_of(p.error_code);
            out.current_leader =
                leader_of(p.current_leader.leader_id, p.current_leader.leader_epoch);
            if (p.high_watermark >= 0) {
                out.high_watermark = raft_offset{p.high_watermark};
            }
            out.log_start_offset = raft_offset{std::max<int64_t>(0, p.log_start_offset)};
            if (p.diverging_epoch.epoch >= 0) {
                out.diverging_epoch = offset_and_epoch{raft_offset{p.diverging_epoch.end_offset},
                                                       raft_epoch{p.diverging_epoch.epoch}};
            }
            if (p.snapshot_id.epoch >= 0) {
                out.snapshot_id = offset_and_epoch{raft_offset{p.snapshot_id.end_offset},
                                                   raft_epoch{p.snapshot_id.epoch}};
            }
            if (!p.records.is_null() && p.records.size() > 0) {
                auto batches = decode_record_batches(p.records.contiguous());
                if (!batches) {
                    return batches.err();
                }
                out.records = std::move(*batches);
            }
            return raft_message(std::move(out));
        }
        case k_fetch_snapshot: {
            auto r = decode<protocol::fetch_snapshot_response>(body, version);
            if (!r) {
                return r.err();
            }
            fetch_snapshot_response out;
            out.correlation_id = corr;
            if (r->error_code != 0) {
                out.error = code_of(r->error_code);
                return raft_message(std::move(out));
            }
            auto* p = only_partition(r->topics);
            if (!p) {
                return not_metadata_partition();
            }
            out.error = code_of(p->error_code);
            out.current_leader =
                leader_of(p->current_leader.leader_id, p->current_leader.leader_epoch);
            out.snapshot_id = {raft_offset{p->snapshot_id.end_offset},
                               raft_epoch{p->snapshot_id.epoch}};
            out.size = p->size;
            out.position = p->position;
            auto chunk = p->unaligned_records.contiguous();
            out.chunk.assign(chunk.begin(), chunk.end());
            return raft_message(std::move(out));
        }
        default:
            return error(error_code::corrupt_message, "not a KRaft api");
    }
}

// ---- their requests in, our answers out

result<raft_message> decode_raft_request(int16_t api_key, int16_t version, bytes_view body,
                                         std::optional<std::string>& cluster_id) {
    switch (api_key) {
        case k_vote: {
            auto r = decode<protocol::vote_request>(body, version);
            if (!r) {
                return r.err();
            }
            cluster_id = r->cluster_id;
            auto* p = only_metadata_partition(r->topics);
            if (!p) {
                return not_the_metadata_partition_request();
            }
            vote_request out;
            out.candidate_epoch = raft_epoch{p->candidate_epoch};
            out.candidate_id = node_id{p->candidate_id};
            out.last_offset = {raft_offset{p->last_offset}, raft_epoch{p->last_offset_epoch}};
            out.pre_vote = p->pre_vote;
            return raft_message(out);
        }
        case k_begin: {
            auto r = decode<protocol::begin_quorum_epoch_request>(body, version);
            if (!r) {
                return r.err();
            }
            cluster_id = r->cluster_id;
            auto* p = only_metadata_partition(r->topics);
            if (!p) {
                return not_the_metadata_partition_request();
            }
            begin_quorum_epoch_request out;
            out.leader = leader_of(p->leader_id, p->leader_epoch);
            return raft_message(out);
        }
        case k_end: {
            auto r = decode<protocol::end_quorum_epoch_request>(body, version);
            if (!r) {
                return r.err();
            }
            cluster_id = r->cluster_id;
            auto* p = only_metadata_partition(r->topics);
            if (!p) {
                return not_the_metadata_partition_request();
            }
            end_quorum_epoch_request out;
            out.leader = leader_of(p->leader_id, p->leader_epoch);
            for (auto s : p->preferred_successors) {
                out.preferred_successors.push_back(node_id{s});
            }
            for (const auto& c : p->preferred_candidates) {  // v1 names them here
                out.preferred_successors.push_back(node_id{c.candidate_id});
            }
            return raft_message(std::move(out));
        }
        case k_fetch_snapshot: {
            auto r = decode<protocol::fetch_snapshot_request>(body, version);
            if (!r) {
                return r.err();
            }
            cluster_id = r->cluster_id;
            // Kafka's Raft client: one partition, or INVALID_REQUEST; another
            // one than the metadata partition is UNKNOWN_TOPIC_OR_PARTITION,
            // answered naming it (encode_unknown_snapshot_partition).
            auto* p = only_partition(r->topics);
            if (!p) {
                return not_the_metadata_partition_request();
            }
            if (r->topics.front().name != metadata_topic_name || p->partition != 0) {
                return error(error_code::unknown_topic_or_partition,
                             "a FetchSnapshot of another partition than __cluster_metadata-0");
            }
            fetch_snapshot_request out;
            out.replica_id = node_id{r->replica_id};
            out.max_bytes = r->max_bytes;
            out.current_leader_epoch = raft_epoch{p->current_leader_epoch};
            out.snapshot_id = {raft_offset{p->snapshot_id.end_offset},
                               raft_epoch{p->snapshot_id.epoch}};
            out.position = p->position;
            return raft_message(out);
        }
        default:
            return error(error_code::corrupt_message, "not a KRaft request");
    }
}

namespace {

template <typename Response, typename Partition>
bytes encode_leader_answer(error_code ec, leader_and_epoch l, int16_t version,
                           const std::function<void(Partition&)>& extra = {}) {
    Response w;
    auto& t = w.topics.emplace_back();
    t.topic_name = k_topic;
    auto& p = t.partitions.emplace_back();
    p.error_code = to_wire(ec);
    p.leader_id = l.leader;
    p.leader_epoch = l.epoch.value();
    if (extra) {
        extra(p);
    }
    return encode(w, version);
}

}  // namespace

bytes encode_raft_response(const raft_message& m, int16_t version) {
    if (auto* v = std::get_if<vote_response>(&m)) {
        using P = protocol::vote_response::topic_data::partition_data;
        bool granted = v->vote_granted;
        return encode_leader_answer<protocol::vote_response, P>(
            v->error, v->current_leader, version, [granted](P& p) { p.vote_granted = granted; });
    }
    if (auto* b = std::get_if<begin_quorum_epoch_response>(&m)) {
        using P = protocol::begin_quorum_epoch_response::topic_data::partition_data;
        return encode_leader_answer<protocol::begin_quorum_epoch_response, P>(
            b->error, b->current_leader, version);
    }
    if (auto* e = std::get_if<end_quorum_epoch_response>(&m)) {
        using P = protocol::end_quorum_epoch_response::topic_data::partition_data;
        return encode_leader_answer<protocol::end_quorum_epoch_response, P>(
            e->error, e->current_leader, version);
    }
    if (auto* s = std::get_if<fetch_snapshot_response>(&m)) {
        protocol::fetch_snapshot_response w;
        auto& t = w.topics.emplace_back();
        t.name = k_topic;
        auto& p = t.partitions.emplace_back();
        p.error_code = to_wire(s->error);
        p.current_leader.leader_id = s->current_leader.leader;
        p.current_leader.leader_epoch = s->current_leader.epoch.value();
        p.snapshot_id.end_offset = s->snapshot_id.offset.value();
        p.snapshot_id.epoch = s->snapshot_id.epoch.value();
        p.size = s->size;
        p.position = s->position;
        p.unaligned_records = protocol::records::view(s->chunk);
        return encode(w, version);
    }
    return {};
}

bytes encode_raft_error_response(int16_t api_key, int16_t version, error_code ec) {
    switch (api_key) {
        case k_vote: {
            protocol::vote_response w;
            w.error_code = to_wire(ec);
            return encode(w, version);
        }
        case k_begin: {
            protocol::begin_quorum_epoch_response w;
            w.error_code = to_wire(ec);
            return encode(w, version);
        }
        case k_end: {
            protocol::end_quorum_epoch_response w;
            w.error_code = to_wire(ec);
            return encode(w, version);
        }
        default: {
            protocol::fetch_snapshot_response w;
            w.error_code = to_wire(ec);
            return encode(w, version);
        }
    }
}

bytes encode_unknown_snapshot_partition(bytes_view request_body, int16_t version) {
    protocol::fetch_snapshot_response w;
    auto r = decode<protocol::fetch_snapshot_request>(request_body, version);
    if (r && !r->topics.empty() && !r->topics.front().partitions.empty()) {
        auto& t = w.topics.emplace_back();
        t.name = r->topics.front().name;
        auto& p = t.partitions.emplace_back();
        p.index = r->topics.front().partitions.front().partition;
        p.error_code = to_wire(error_code::unknown_topic_or_partition);
        p.current_leader.leader_id = no_node;
        p.current_leader.leader_epoch = -1;
        p.snapshot_id.end_offset = -1;
        p.snapshot_id.epoch = -1;
    } else {
        w.error_code = to_wire(error_code::invalid_request);
    }
    return encode(w, version);
}

// ---- Fetch of the metadata partition

bool is_metadata_fetch(const protocol::fetch_request& r) {
    if (r.topics.size() != 1) {
        return false;
    }
    const auto& t = r.topics.front();
    return t.topic == metadata_topic_name || t.topic_id == metadata_topic_id();
}

raft_message raft_fetch_from_wire(const protocol::fetch_request& r) {
    fetch_request out;
    // v15+ carries the replica id in ReplicaState.
    out.replica_id = r.replica_id.is_valid() ? r.replica_id : r.replica_state.replica_id;
    out.max_wait = raft_ms{std::max(0, r.max_wait_ms)};
    out.max_bytes = r.max_bytes;
    if (!r.topics.empty() && !r.topics.front().partitions.empty()) {
        const auto& p = r.topics.front().partitions.front();
        out.current_leader_epoch = raft_epoch{p.current_leader_epoch};
        out.fetch_offset = raft_offset{p.fetch_offset};
        out.last_fetched_epoch = raft_epoch{p.last_fetched_epoch};
        out.max_bytes = std::min(out.max_bytes, p.partition_max_bytes);
    }
    return out;
}

protocol::fetch_response raft_fetch_to_wire(const fetch_response& r) {
    protocol::fetch_response w;
    auto& t = w.responses.emplace_back();
    t.topic = k_topic;
    t.topic_id = metadata_topic_id();
    auto& p = t.partitions.emplace_back();
    p.error_code = to_wire(r.error);
    p.high_watermark = r.high_watermark ? r.high_watermark->value() : -1;
    p.log_start_offset = r.log_start_offset.value();
    p.current_leader.leader_id = r.current_leader.leader;
    p.current_leader.leader_epoch = r.current_leader.epoch.value();
    if (r.diverging_epoch) {
        p.diverging_epoch.epoch = r.diverging_epoch->epoch.value();
        p.diverging_epoch.end_offset = r.diverging_epoch->offset.value();
    }
    if (r.snapshot_id) {
        p.snapshot_id.epoch = r.snapshot_id->epoch.value();
        p.snapshot_id.end_offset = r.snapshot_id->offset.value();
    }
    auto data = std::make_shared<bytes>();
    for (const auto& b : r.records) {
        auto encoded = encode_record_batch(b, 0);
        if (encoded) {
            data->insert(data->end(), encoded->begin(), encoded->end());
        }
    }
    p.records = protocol::records::view(*data, data);
    return w;
}

}  // namespace samsa::raft
