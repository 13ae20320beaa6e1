#include "server/fetch/fetch_plan.h"

namespace samsa::server::fetch {

namespace {

void resolve_target(fetch_target& t, const metadata::metadata_image& image, bool by_id) {
    const metadata::topic_image* topic = nullptr;
    if (by_id) {
        topic = image.topic(t.topic_id);
        if (!topic) {
            t.error = error_code::unknown_topic_id;
            return;
        }
        t.key.topic = topic->name;
    } else {
        topic = image.topic(t.key.topic);
        if (!topic) {
            t.error = error_code::unknown_topic_or_partition;
            return;
        }
        t.topic_id = topic->id;
    }
    if (t.key.partition < 0 || size_t(t.key.partition) >= topic->partitions.size()) {
        t.error = error_code::unknown_topic_or_partition;
    }
}

// Where a session keeps a partition: by topic id when the session names topics
// by id (v13+), so that a topic the broker does not know yet stays itself and
// resolves once the broker learns of it (as Kafka re-resolves cached names).
session_partition_key session_key(const std::string& name, const uuid& id, int32_t partition,
                                  bool by_id) {
    return {by_id ? id.to_string() : name, partition};
}

}  // namespace

fetch_plan make_fetch_plan(const protocol::fetch_request& req, int16_t version,
                           const metadata::metadata_image& image, fetch_session_cache& sessions,
                           int64_t now_ms, const shard_fn& shard_of) {
    fetch_plan plan;
    plan.cache = &sessions;
    const bool by_id = version >= 13;
    const int32_t id = version >= 7 ? req.session_id : 0;
    const int32_t epoch = version >= 7 ? req.session_epoch : -1;

    auto add_from_request = [&](fetch_session* s) {
        for (const auto& t : req.topics) {
            for (const auto& p : t.partitions) {
                fetch_target ft;
                ft.key = {by_id ? std::string() : t.topic, p.partition};
                ft.topic_id = t.topic_id;
                ft.fetch_offset = p.fetch_offset;
                ft.partition_max_bytes = p.partition_max_bytes;
                ft.current_leader_epoch = p.current_leader_epoch;
                ft.last_fetched_epoch = version >= 12 ? p.last_fetched_epoch : -1;
                resolve_target(ft, image, by_id);
                if (s) {
                    session_partition sp;
                    sp.topic_id = ft.topic_id;
                    sp.fetch_offset = ft.fetch_offset;
                    sp.max_bytes = ft.partition_max_bytes;
                    sp.current_leader_epoch = ft.current_leader_epoch;
                    sp.last_fetched_epoch = ft.last_fetched_epoch;
                    s->upsert(session_key(t.topic, t.topic_id, p.partition, by_id), sp);
                }
                plan.targets.push_back(std::move(ft));
            }
        }
    };

    if (epoch <= 0) {
        // Full fetch; (X, 0) and (X, -1) close X first.
        if (id != 0) {
            sessions.remove(id);
        }
        if (epoch == 0) {
            plan.session = sessions.create(by_id, now_ms);
        }
        add_from_request(plan.session.get());
        if (plan.session) {
            plan.response_session_id = plan.session->id();
        }
    } else {
        auto s = sessions.acquire(id, epoch, now_ms);
        if (!s) {
            plan.error = s.code();
            return plan;
        }
        plan.session = std::move(*s);
        plan.incremental = true;
        plan.response_session_id = plan.session->id();
        for (const auto& f : req.forgotten_topics_data) {
            for (int32_t p : f.partitions) {
                plan.session->remove(session_key(f.topic, f.topic_id, p, by_id));
            }
        }
        add_from_request(plan.session.get());
        plan.targets.clear();
        for (auto& [key, sp] : plan.session->partitions()) {
            fetch_target ft;
            ft.key = {by_id ? std::string() : key.topic, key.partition};
            ft.topic_id = sp.topic_id;
            ft.fetch_offset = sp.fetch_offset;
            ft.partition_max_bytes = sp.max_bytes;
            ft.current_leader_epoch = sp.current_leader_epoch;
            ft.last_fetched_epoch = sp.last_fetched_epoch;
            resolve_target(ft, image, by_id);
            ft.in_session = &sp;
            plan.targets.push_back(std::move(ft));
        }
    }
    if (plan.session && !plan.incremental) {
        for (auto& ft : plan.targets) {
            ft.in_session =
                plan.session->find(session_key(ft.key.topic, ft.topic_id, ft.key.partition, by_id));
        }
    }
    for (auto& ft : plan.targets) {
        if (ft.error == error_code::none) {
            ft.shard = shard_of(ft.topic_id, ft.key.partition);
        }
    }
    return plan;
}

}  // namespace samsa::server::fetch
