#include "tools/group_offsets_reset.h"

#include <cstdio>
#include <map>

#include "tools/group_admin.h"
#include "tools/kafka_client.h"
#include "tools/text_table.h"

namespace samsa::tools {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = unsigned(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + int64_t(doe) - 719468;
}

bool digits(std::string_view s, size_t pos, size_t n, int& out) {
    if (pos + n > s.size()) {
        return false;
    }
    out = 0;
    for (size_t i = pos; i < pos + n; ++i) {
        if (s[i] < '0' || s[i] > '9') {
            return false;
        }
        out = out * 10 + (s[i] - '0');
    }
    return true;
}

// The partitions a --topic argument names ("t" or "t:0,2"), checked against the cluster.
result<std::vector<topic_partition>> partitions_of(const cluster_metadata& md,
                                                   const std::string& arg) {
    auto colon = arg.find(':');
    std::string topic = arg.substr(0, colon);
    const topic_info* t = md.find(topic);
    if (t == nullptr || t->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
        return tool_error("Topic '" + topic + "' does not exist");
    }
    std::vector<topic_partition> out;
    if (colon == std::string::npos) {
        for (const auto& p : t->partitions) {
            out.emplace_back(topic, p.id);
        }
        return out;
    }
    std::string list = arg.substr(colon + 1);
    size_t start = 0;
    while (start < list.size()) {
        size_t comma = list.find(',', start);
        std::string item =
            list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        start = comma == std::string::npos ? list.size() : comma + 1;
        int p = 0;
        if (item.empty() || !digits(item, 0, item.size(), p)) {
            return tool_error("invalid partition list in '" + arg + "'");
        }
        bool exists = false;
        for (const auto& pi : t->partitions) {
            exists = exists || pi.id == p;
        }
        if (!exists) {
            return tool_error("Partition " + item + " of topic '" + topic + "' does not exist");
        }
        out.emplace_back(topic, p);
    }
    return out;
}

}  // namespace

std::optional<int64_t> parse_reset_datetime(std::string_view s) {
    int y, mo, d, h, mi, sec, ms = 0;
    if (!digits(s, 0, 4, y) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, mo) ||
        s[7] != '-' || !digits(s, 8, 2, d) || s[10] != 'T' || !digits(s, 11, 2, h) ||
        s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, sec)) {
        return std::nullopt;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) {
        return std::nullopt;
    }
    size_t pos = 19;
    if (pos < s.size() && s[pos] == '.') {
        size_t n = 0;
        while (pos + 1 + n < s.size() && s[pos + 1 + n] >= '0' && s[pos + 1 + n] <= '9') {
            ++n;
        }
        if (n == 0 || n > 3 || !digits(s, pos + 1, n, ms)) {
            return std::nullopt;
        }
        for (size_t i = n; i < 3; ++i) {
            ms *= 10;
        }
        pos += 1 + n;
    }
    int64_t offset_minutes = 0;
    if (pos < s.size()) {
        char sign = s[pos];
        if (sign == 'Z' && pos + 1 == s.size()) {
            pos += 1;
        } else if (sign == '+' || sign == '-') {
            int oh, om;
            std::string_view zone = s.substr(pos + 1);
            if (zone.size() == 5 && zone[2] == ':' && digits(zone, 0, 2, oh) &&
                digits(zone, 3, 2, om)) {
            } else if (zone.size() == 4 && digits(zone, 0, 2, oh) && digits(zone, 2, 2, om)) {
            } else if (zone.size() == 2 && digits(zone, 0, 2, oh)) {
                om = 0;
            } else {
                return std::nullopt;
            }
            offset_minutes = (oh * 60 + om) * (sign == '+' ? 1 : -1);
            pos = s.size();
        } else {
            return std::nullopt;
        }
    }
    if (pos != s.size()) {
        return std::nullopt;
    }
    int64_t days = days_from_civil(y, unsigned(mo), unsigned(d));
    int64_t seconds = days * 86400 + h * 3600 + mi * 60 + sec - offset_minutes * 60;
    return seconds * 1000 + ms;
}

int run_reset_offsets(kafka_client& client, const reset_request& req) {
    auto group = describe_group(client, req.group);
    if (!group) {
        return fail(group.err());
    }
    if (group->state != "Empty" && group->state != "Dead") {
        return fail("Assignments can only be reset if the group '" + req.group +
                    "' is inactive, but the current state is " + group->state + ".");
    }
    auto committed = committed_offsets(client, req.group);
    if (!committed) {
        return fail(committed.err());
    }
    std::vector<topic_partition> chosen;
    if (req.all_topics) {
        for (const auto& [tp, _] : *committed) {
            chosen.push_back(tp);
        }
    } else {
        auto md = client.metadata();
        if (!md) {
            return fail(md.err());
        }
        for (const auto& arg : req.topics) {
            auto parts = partitions_of(*md, arg);
            if (!parts) {
                return fail(parts.err());
            }
            chosen.insert(chosen.end(), parts->begin(), parts->end());
        }
    }

    std::map<topic_partition, int64_t> plan;
    std::map<topic_partition, int64_t> by_time;
    if (req.kind == reset_kind::to_datetime && !chosen.empty()) {
        partition_list_ptr list(rd_kafka_topic_partition_list_new(int(chosen.size())));
        for (const auto& tp : chosen) {
            rd_kafka_topic_partition_list_add(list.get(), tp.first.c_str(), tp.second)->offset =
                req.value;
        }
        rd_kafka_resp_err_t err =
            rd_kafka_offsets_for_times(client.handle(), list.get(), client.timeout_ms());
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            return fail(client.explain("looking up offsets by time failed", err));
        }
        for (int i = 0; i < list->cnt; ++i) {
            by_time[{list->elems[i].topic, list->elems[i].partition}] = list->elems[i].offset;
        }
    }
    for (const auto& tp : chosen) {
        auto wm = client.query_watermarks(tp.first, tp.second);
        if (!wm) {
            return fail(wm.err());
        }
        auto current = committed->find(tp);
        int64_t target = 0;
        switch (req.kind) {
            case reset_kind::earliest:
                target = wm->low;
                break;
            case reset_kind::latest:
                target = wm->high;
                break;
            case reset_kind::to_offset:
                target = req.value;
                break;
            case reset_kind::to_datetime: {
                // No record at or after that time: the end of the log.
                int64_t o = by_time[tp];
                target = o >= 0 ? o : wm->high;
                break;
            }
            case reset_kind::shift_by:
            case reset_kind::to_current:
                if (current == committed->end()) {
                    return fail("group '" + req.group + "' has no committed offset for " +
                                tp.first + "-" + std::to_string(tp.second));
                }
                target = current->second + (req.kind == reset_kind::shift_by ? req.value : 0);
                break;
        }
        // Out of range targets snap to the log's ends, as Kafka does (with a warning).
        if (target < wm->low) {
            std::fprintf(stderr,
                         "New offset (%lld) is lower than earliest offset for topic partition "
                         "%s-%d. Value will be set to %lld\n",
                         static_cast<long long>(target), tp.first.c_str(), tp.second,
                         static_cast<long long>(wm->low));
            target = wm->low;
        } else if (target > wm->high) {
            std::fprintf(stderr,
                         "New offset (%lld) is higher than latest offset for topic partition "
                         "%s-%d. Value will be set to %lld\n",
                         static_cast<long long>(target), tp.first.c_str(), tp.second,
                         static_cast<long long>(wm->high));
            target = wm->high;
        }
        plan[tp] = target;
    }

    if (req.execute && !plan.empty()) {
        if (auto s = alter_committed_offsets(client, req.group, plan); !s) {
            return fail(s.err());
        }
    }
    if (!plan.empty()) {
        text_table table({{"GROUP", 30}, {"TOPIC", 30}, {"PARTITION", 10}, {"NEW-OFFSET", 0}});
        for (const auto& [tp, offset] : plan) {
            table.add_row({req.group, tp.first, std::to_string(tp.second), std::to_string(offset)});
        }
        std::printf("\n%s", table.render().c_str());
    }
    return 0;
}

}  // namespace samsa::tools
