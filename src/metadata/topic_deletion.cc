#include "metadata/topic_deletion.h"

#include <map>
#include <set>

namespace samsa::metadata {

namespace {

using topic_result = protocol::delete_topics_response::deletable_topic_result;

void answer(protocol::delete_topics_response& resp, std::optional<std::string> name, const uuid& id,
            error_code code, std::string message = {}) {
    auto& r = resp.responses.emplace_back();
    r.name = std::move(name);
    r.topic_id = id;
    r.error_code = to_wire(code);
    r.error_message = message.empty() ? std::nullopt : std::optional(std::move(message));
}

}  // namespace

controller_plan<protocol::delete_topics_response> plan_delete_topics(
    const controller_state& s, const protocol::delete_topics_request& request) {
    controller_plan<protocol::delete_topics_response> plan;
    auto& resp = plan.response;

    // Names and ids as given, with how often each was given.
    std::vector<std::string> names;
    std::map<std::string, int> name_count;
    std::vector<uuid> ids;
    std::map<uuid, int> id_count;
    auto add_name = [&](const std::string& n) {
        if (name_count[n]++ == 0) {
            names.push_back(n);
        }
    };
    for (const auto& n : request.topic_names) {
        add_name(n);
    }
    for (const auto& t : request.topics) {
        if (!t.name) {
            if (t.topic_id.is_zero()) {
                answer(resp, std::nullopt, uuid{}, error_code::invalid_request,
                       "Neither topic name nor id were specified.");
            } else if (id_count[t.topic_id]++ == 0) {
                ids.push_back(t.topic_id);
            }
        } else if (t.topic_id.is_zero()) {
            add_name(*t.name);
        } else {
            answer(resp, t.name, t.topic_id, error_code::invalid_request,
                   "You may not specify both topic name and topic id.");
        }
    }

    // id -> name of the topics to delete, in request order.
    std::vector<std::pair<uuid, std::string>> doomed;
    std::set<uuid> doomed_ids;
    for (const auto& id : ids) {
        if (id_count[id] > 1) {
            answer(resp, std::nullopt, id, error_code::invalid_request, "Duplicate topic id.");
            continue;
        }
        const topic_image* t = s.image.topic(id);
        if (!t) {
            answer(resp, std::nullopt, id, error_code::unknown_topic_id);
            continue;
        }
        doomed.emplace_back(id, t->name);
        doomed_ids.insert(id);
    }
    for (const auto& n : names) {
        if (name_count[n] > 1) {
            answer(resp, n, uuid{}, error_code::invalid_request, "Duplicate topic name.");
            continue;
        }
        const topic_image* t = s.image.topic(n);
        if (!t) {
            answer(resp, n, uuid{}, error_code::unknown_topic_or_partition);
            continue;
        }
        if (doomed_ids.count(t->id)) {
            // Kafka refuses both the id and the name in this case.
            for (auto it = doomed.begin(); it != doomed.end(); ++it) {
                if (it->first == t->id) {
                    doomed.erase(it);
                    break;
                }
            }
            answer(resp, n, t->id, error_code::invalid_request,
                   "The provided topic name maps to an ID that was already supplied.");
            continue;
        }
        doomed.emplace_back(t->id, t->name);
        doomed_ids.insert(t->id);
    }

    for (const auto& [id, name] : doomed) {
        protocol::remove_topic_record r;
        r.topic_id = id;
        plan.records.emplace_back(r);
        answer(resp, name, id, error_code::none);
    }
    return plan;
}

}  // namespace samsa::metadata
