#include "coordinator/group/offsets_loader.h"

#include <spdlog/spdlog.h>

#include <limits>

#include "common/logging/loggers.h"
#include "coordinator/group/offsets_record_serde.h"
#include "record/batch_iterator.h"
#include "record/control_record.h"

namespace samsa::coordinator {

void offsets_loader::apply_offset(std::map<offset_key, std::optional<offset_entry>>& into,
                                  offset_key key, std::optional<offset_entry> entry) {
    into[std::move(key)] = std::move(entry);
}

void offsets_loader::end_transaction(int64_t producer_id, bool commit) {
    auto it = _pending.find(producer_id);
    if (it == _pending.end()) {
        return;
    }
    if (commit) {
        for (auto& [key, entry] : it->second) {
            auto cur = _offsets.find(key);
            // The transaction's record counts unless a later plain commit (or
            // deletion) of the same key was appended after it.
            if (!entry) {
                continue;
            }
            if (cur != _offsets.end() && cur->second &&
                cur->second->record_offset > entry->record_offset) {
                continue;
            }
            _offsets[key] = std::move(entry);
        }
    }
    _pending.erase(it);
}

std::map<int64_t, std::map<std::pair<std::string, storage::topic_partition>, offset_and_metadata>>
offsets_loader::pending_transactions() const {
    std::map<int64_t,
             std::map<std::pair<std::string, storage::topic_partition>, offset_and_metadata>>
        out;
    for (const auto& [pid, offsets] : _pending) {
        for (const auto& [key, entry] : offsets) {
            if (entry) {
                out[pid][key] = entry->value;
            }
        }
    }
    return out;
}

status offsets_loader::apply_batch(bytes_view batch) {
    auto it = record::record_iterator::open(batch);
    if (!it) {
        return it.err();
    }
    const auto& h = it->header();
    record::record r;
    while (true) {
        auto more = it->next(r);
        if (!more) {
            return more.err();
        }
        if (!*more) {
            break;
        }
        ++_records;
        const int64_t offset = it->offset_of(r);
        if (h.is_control()) {
            auto marker = record::parse_end_txn_marker(r);
            if (marker) {
                end_transaction(h.producer_id, marker->commit);
            }
            continue;
        }
        if (!r.key) {
            ++_skipped;
            continue;
        }
        auto key = decode_offsets_record_key(*r.key);
        if (!key) {
            ++_skipped;
            continue;
        }
        if (auto* ok = std::get_if<offset_commit_key>(&*key)) {
            std::optional<offset_entry> entry;
            if (r.value) {
                auto v = decode_offset_commit_value(*r.value);
                if (!v) {
                    ++_skipped;
                    continue;
                }
                entry = offset_entry{std::move(*v), offset};
            }
            offset_key k{ok->group, ok->tp};
            if (h.is_transactional()) {
                apply_offset(_pending[h.producer_id], std::move(k), std::move(entry));
            } else {
                apply_offset(_offsets, std::move(k), std::move(entry));
            }
        } else if (auto* gk = std::get_if<group_metadata_key>(&*key)) {
            if (!r.value) {
                _groups[gk->group] = std::nullopt;
                continue;
            }
            auto v = decode_group_metadata_value(*r.value);
            if (!v) {
                ++_skipped;
                continue;
            }
            _groups[gk->group] = std::move(*v);
        } else if (auto* uk = std::get_if<unknown_key>(&*key);
                   uk && uk->version >= consumer_group_metadata_key_version &&
                   uk->version <= consumer_group_current_assignment_key_version) {
            std::optional<bytes_view> value;
            if (r.value) {
                value = bytes_view(*r.value);
            }
            auto rec = decode_consumer_group_record(uk->version, *r.key, value);
            if (!rec) {
                ++_skipped;
                continue;
            }
            apply_consumer_group_record(std::move(*rec));
        }
        // Other key versions belong to other group types (share groups).
    }
    return {};
}

void offsets_loader::apply_consumer_group_record(consumer_group_record rec) {
    auto& g = _consumer_groups[rec.group_id];
    switch (rec.key_version) {
        case consumer_group_metadata_key_version:
            if (rec.tombstone) {
                g.epoch.reset();
            } else {
                g.epoch = rec.epoch;
            }
            break;
        case consumer_group_member_metadata_key_version:
            if (rec.tombstone) {
                g.members.erase(rec.member_id);
            } else {
                rec.member.member_id = rec.member_id;
                g.members[rec.member_id] = std::move(rec.member);
            }
            break;
        case consumer_group_target_metadata_key_version:
            g.assignment_epoch = rec.tombstone ? 0 : rec.epoch;
            break;
        case consumer_group_target_member_key_version:
            if (rec.tombstone) {
                g.targets.erase(rec.member_id);
            } else {
                g.targets[rec.member_id] = std::move(rec.target);
            }
            break;
        case consumer_group_current_assignment_key_version:
            if (rec.tombstone) {
                g.current.erase(rec.member_id);
            } else {
                g.current[rec.member_id] = std::move(rec.member);
            }
            break;
        default:
            break;  // partition metadata: refreshed from the image instead
    }
}

std::vector<std::unique_ptr<consumer_group>> offsets_loader::take_consumer_groups() {
    std::vector<std::unique_ptr<consumer_group>> out;
    for (auto& [id, loaded] : _consumer_groups) {
        if (!loaded.epoch) {
            continue;
        }
        auto g = std::make_unique<consumer_group>(id);
        g->set_group_epoch(*loaded.epoch);
        g->set_assignment_epoch(loaded.assignment_epoch);
        for (auto& [mid, m] : loaded.members) {
            auto cur = loaded.current.find(mid);
            if (cur != loaded.current.end()) {
                m.member_epoch = cur->second.member_epoch;
                m.previous_member_epoch = cur->second.previous_member_epoch;
                m.state = cur->second.state;
                m.assigned = std::move(cur->second.assigned);
                m.pending_revocation = std::move(cur->second.pending_revocation);
                m.assignment_epochs = std::move(cur->second.assignment_epochs);
            }
            g->update_member(std::move(m));
        }
        for (auto& [mid, target] : loaded.targets) {
            if (g->get(mid)) {
                g->set_target(mid, std::move(target));
            }
        }
        // Its offsets, and no classic group of the same id.
        _groups.erase(id);
        const storage::topic_partition first{"", std::numeric_limits<int32_t>::min()};
        for (auto it = _offsets.lower_bound({id, first});
             it != _offsets.end() && it->first.first == id;) {
            if (it->second) {
                g->offsets().put(it->first.second, std::move(it->second->value));
            }
            it = _offsets.erase(it);
        }
        out.push_back(std::move(g));
    }
    _consumer_groups.clear();
    return out;
}

std::unique_ptr<classic_group> restore_group(const std::string& group_id,
                                             const protocol::group_metadata_value& value,
                                             int64_t now_ms) {
    const bool has_members = !value.members.empty();
    auto g = std::make_unique<classic_group>(
        group_id, has_members ? group_state::stable : group_state::empty, now_ms);
    std::optional<std::string> protocol_type;
    if (!value.protocol_type.empty()) {
        protocol_type = value.protocol_type;
    }
    std::optional<int64_t> state_ts;
    if (value.current_state_timestamp != -1) {
        state_ts = value.current_state_timestamp;
    }
    g->restore(value.generation, protocol_type, value.protocol, value.leader, state_ts);
    for (const auto& m : value.members) {
        std::vector<member_protocol> protocols;
        protocols.push_back({value.protocol.value_or(""), m.subscription});
        // Before v1 there was no rebalance timeout: the session timeout served.
        int32_t rebalance_timeout =
            m.rebalance_timeout >= 0 ? m.rebalance_timeout : m.session_timeout;
        auto member = std::make_unique<group_member>(
            m.member_id, m.group_instance_id, m.client_id, m.client_host, rebalance_timeout,
            m.session_timeout, value.protocol_type, std::move(protocols));
        member->set_assignment(m.assignment);
        g->restore_member(std::move(member));
    }
    return g;
}

std::vector<std::unique_ptr<classic_group>> offsets_loader::finish(int64_t now_ms) {
    // Transactions without a marker yet stay out (Kafka keeps them pending
    // until the marker arrives; ours never will before transactions land).
    std::map<std::string, std::unique_ptr<classic_group>> groups;
    for (auto& [id, value] : _groups) {
        if (value) {
            groups[id] = restore_group(id, *value, now_ms);
        }
    }
    for (auto& [key, entry] : _offsets) {
        if (!entry) {
            continue;
        }
        auto& g = groups[key.first];
        if (!g) {
            // Offsets without group metadata: a group of simple consumers.
            g = std::make_unique<classic_group>(key.first, group_state::empty, now_ms);
        }
        g->offsets().put(key.second, std::move(entry->value));
    }
    std::vector<std::unique_ptr<classic_group>> out;
    for (auto& [id, g] : groups) {
        out.push_back(std::move(g));
    }
    if (_skipped > 0) {
        logging::groups().warn("event=offsets_load_records_skipped count={}", _skipped);
    }
    return out;
}

}  // namespace samsa::coordinator
