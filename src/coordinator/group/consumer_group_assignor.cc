// The uniform and range assignors of consumer groups (KIP-848).
#include "coordinator/group/consumer_group_assignor.h"

#include <algorithm>

namespace samsa::coordinator {

namespace {

using partition_ref = std::pair<uuid, int32_t>;

class uniform_assignor final : public partition_assignor {
  public:
    const char* name() const override { return "uniform"; }

    group_assignment assign(const assignment_spec& spec) const override {
        group_assignment out;
        std::map<std::string, size_t> count;
        std::map<partition_ref, std::string> owner;
        for (const auto& [id, m] : spec.members) {
            out[id];
            count[id] = 0;
        }
        // 1. What each member keeps: its current target, where still valid.
        for (const auto& [id, m] : spec.members) {
            for (const auto& [topic, parts] : m.current) {
                auto n = spec.partitions.find(topic);
                if (n == spec.partitions.end() || !m.topics.count(topic)) {
                    continue;
                }
                for (int32_t p : parts) {
                    if (p < n->second && owner.emplace(partition_ref{topic, p}, id).second) {
                        out[id][topic].insert(p);
                        ++count[id];
                    }
                }
            }
        }
        // 2. The rest, each to the least loaded member that subscribes to
        //    its topic; partitions with fewer candidates first.
        std::map<uuid, std::vector<std::string>> subscribers;
        for (const auto& [id, m] : spec.members) {
            for (const auto& t : m.topics) {
                subscribers[t].push_back(id);
            }
        }
        std::vector<partition_ref> unassigned;
        for (const auto& [topic, n] : spec.partitions) {
            if (!subscribers.count(topic)) {
                continue;
            }
            for (int32_t p = 0; p < n; ++p) {
                if (!owner.count({topic, p})) {
                    unassigned.push_back({topic, p});
                }
            }
        }
        std::stable_sort(unassigned.begin(), unassigned.end(),
                         [&](const partition_ref& a, const partition_ref& b) {
                             return subscribers[a.first].size() < subscribers[b.first].size();
                         });
        for (const auto& tp : unassigned) {
            const std::string* best = nullptr;
            for (const auto& id : subscribers[tp.first]) {
                if (!best || count[id] < count[*best]) {
                    best = &id;
                }
            }
            owner[tp] = *best;
            out[*best][tp.first].insert(tp.second);
            ++count[*best];
        }
        // 3. Balance: move a partition from a member with two or more than
        //    another that could take it, until no such move is left. Only
        //    these moves take partitions away from where they were.
        const size_t limit = owner.size() * std::max<size_t>(1, spec.members.size()) + 1;
        for (size_t moves = 0; moves < limit; ++moves) {
            if (!move_one(spec, out, count)) {
                break;
            }
        }
        for (auto& [id, a] : out) {
            std::erase_if(a, [](const auto& kv) { return kv.second.empty(); });
        }
        return out;
    }

  private:
    static bool move_one(const assignment_spec& spec, group_assignment& out,
                         std::map<std::string, size_t>& count) {
        // The most loaded member first (of those, the one due to heartbeat
        // first: it releases soonest), the least loaded receiver first.
        std::vector<std::string> ids;
        for (const auto& [id, n] : count) {
            ids.push_back(id);
        }
        auto due = [&spec](const std::string& id) { return spec.members.at(id).heartbeat_due_ms; };
        std::stable_sort(ids.begin(), ids.end(), [&](const auto& a, const auto& b) {
            return count[a] != count[b] ? count[a] > count[b] : due(a) < due(b);
        });
        for (const auto& from : ids) {
            for (auto to = ids.rbegin(); to != ids.rend(); ++to) {
                if (count[from] < count[*to] + 2) {
                    break;
                }
                const auto& topics = spec.members.at(*to).topics;
                auto& src = out[from];
                // The highest partition of a topic the receiver takes.
                for (auto t = src.rbegin(); t != src.rend(); ++t) {
                    if (t->second.empty() || !topics.count(t->first)) {
                        continue;
                    }
                    const int32_t p = *t->second.rbegin();
                    const uuid topic = t->first;
                    t->second.erase(p);
                    out[*to][topic].insert(p);
                    --count[from];
                    ++count[*to];
                    return true;
                }
            }
        }
        return false;
    }
};

class range_assignor final : public partition_assignor {
  public:
    const char* name() const override { return "range"; }

    group_assignment assign(const assignment_spec& spec) const override {
        group_assignment out;
        for (const auto& [id, m] : spec.members) {
            out[id];
        }
        for (const auto& [topic, n] : spec.partitions) {
            std::vector<std::string> members;  // in member id order (a std::map)
            for (const auto& [id, m] : spec.members) {
                if (m.topics.count(topic)) {
                    members.push_back(id);
                }
            }
            if (members.empty()) {
                continue;
            }
            const int32_t per = n / int32_t(members.size());
            const int32_t extra = n % int32_t(members.size());
            int32_t next = 0;
            for (size_t i = 0; i < members.size(); ++i) {
                const int32_t take = per + (int32_t(i) < extra ? 1 : 0);
                for (int32_t k = 0; k < take; ++k) {
                    out[members[i]][topic].insert(next++);
                }
            }
        }
        return out;
    }
};

}  // namespace

std::unique_ptr<partition_assignor> make_assignor(const std::string& name) {
    if (name == "uniform") {
        return std::make_unique<uniform_assignor>();
    }
    if (name == "range") {
        return std::make_unique<range_assignor>();
    }
    return nullptr;
}

const std::vector<std::string>& known_assignors() {
    static const std::vector<std::string> names = {"uniform", "range"};
    return names;
}

}  // namespace samsa::coordinator
