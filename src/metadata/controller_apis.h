#pragma once
// The admin APIs the controller serves for clients (KIP-590: a broker
// forwards them to the active controller), one entry each. An entry says
// which controller operation runs the request and how every item of its
// response carries one error; from that follow, for every API alike:
//
//   submit(controller, request)        run on the controller thread, answer
//                                      once the batch it appended committed
//   answer_with(request, code, msg)    the answer when it cannot run at all
//                                      (no controller, Kafka's getErrorResponse)
//   names_not_controller(response)     the controller moved while it ran:
//                                      worth sending again
//
// Adding a forwarded admin API: its handler, its controller operation, and an
// entry here (the frontend, server/quorum/controller_frontend.h, needs nothing).
#include <algorithm>
#include <asio/awaitable.hpp>
#include <functional>
#include <optional>
#include <string>

#include "common/error.h"
#include "metadata/controller.h"

namespace samsa::metadata {

// Specialised once per API below.
template <typename Request>
struct controller_api;

template <typename Request>
concept controller_served = requires {
    typename controller_api<Request>::response;
};

template <typename Request>
using response_of = typename controller_api<Request>::response;

template <>
struct controller_api<protocol::create_topics_request> {
    using response = protocol::create_topics_response;
    static constexpr auto operation = &controller::do_create_topics;
    static auto& entries(auto& r) { return r.topics; }
    static void name_entries(const protocol::create_topics_request& q, response& r) {
        for (const auto& t : q.topics) {
            r.topics.emplace_back().name = t.name;
        }
    }
    // A topic that was not created has no partitions, factor or configs to report.
    static void on_error(protocol::create_topics_response::creatable_topic_result& e) {
        e.configs.emplace();
        e.num_partitions = -1;
        e.replication_factor = -1;
    }
};

template <>
struct controller_api<protocol::delete_topics_request> {
    using response = protocol::delete_topics_response;
    static constexpr auto operation = &controller::do_delete_topics;
    static auto& entries(auto& r) { return r.responses; }
    static void name_entries(const protocol::delete_topics_request& q, response& r) {
        for (const auto& n : q.topic_names) {
            r.responses.emplace_back().name = n;
        }
        for (const auto& t : q.topics) {
            auto& e = r.responses.emplace_back();
            e.name = t.name;
            e.topic_id = t.topic_id;
        }
    }
    // Before v6 topics are named in `topic_names`; the controller reads
    // either, and a forwarded request goes in the latest version, which has
    // `topics` only.
    static void to_latest(protocol::delete_topics_request& q) {
        for (auto& name : q.topic_names) {
            q.topics.emplace_back().name = std::move(name);
        }
        q.topic_names.clear();
    }
};

template <>
struct controller_api<protocol::create_partitions_request> {
    using response = protocol::create_partitions_response;
    static constexpr auto operation = &controller::do_create_partitions;
    static auto& entries(auto& r) { return r.results; }
    static void name_entries(const protocol::create_partitions_request& q, response& r) {
        for (const auto& t : q.topics) {
            r.results.emplace_back().name = t.name;
        }
    }
};

// AlterConfigs and IncrementalAlterConfigs answer per resource.
template <typename Request, typename Response, auto Operation>
struct config_resources_api {
    using response = Response;
    static constexpr auto operation = Operation;
    static auto& entries(auto& r) { return r.responses; }
    static void name_entries(const Request& q, response& r) {
        for (const auto& res : q.resources) {
            auto& e = r.responses.emplace_back();
            e.resource_type = res.resource_type;
            e.resource_name = res.resource_name;
        }
    }
};

template <>
struct controller_api<protocol::alter_configs_request>
    : config_resources_api<protocol::alter_configs_request, protocol::alter_configs_response,
                           &controller::do_alter_configs> {};

template <>
struct controller_api<protocol::incremental_alter_configs_request>
    : config_resources_api<protocol::incremental_alter_configs_request,
                           protocol::incremental_alter_configs_response,
                           &controller::do_incremental_alter_configs> {};

// AlterUserScramCredentials answers per user named.
template <>
struct controller_api<protocol::alter_user_scram_credentials_request> {
    using response = protocol::alter_user_scram_credentials_response;
    static constexpr auto operation = &controller::do_alter_user_scram_credentials;
    static auto& entries(auto& r) { return r.results; }
    static void name_entries(const protocol::alter_user_scram_credentials_request& q, response& r) {
        for (const auto& d : q.deletions) {
            r.results.emplace_back().user = d.name;
        }
        for (const auto& u : q.upsertions) {
            r.results.emplace_back().user = u.name;
        }
    }
};

// CreateAcls answers per creation, DeleteAcls per filter, in request order.
template <>
struct controller_api<protocol::create_acls_request> {
    using response = protocol::create_acls_response;
    static constexpr auto operation = &controller::do_create_acls;
    static auto& entries(auto& r) { return r.results; }
    static void name_entries(const protocol::create_acls_request& q, response& r) {
        r.results.resize(q.creations.size());
    }
};

template <>
struct controller_api<protocol::delete_acls_request> {
    using response = protocol::delete_acls_response;
    static constexpr auto operation = &controller::do_delete_acls;
    static auto& entries(auto& r) { return r.filter_results; }
    static void name_entries(const protocol::delete_acls_request& q, response& r) {
        r.filter_results.resize(q.filters.size());
    }
    // A filter that failed removed nothing.
    static void on_error(auto& e) { e.matching_acls.clear(); }
};

// AlterClientQuotas answers per entity, in request order.
template <>
struct controller_api<protocol::alter_client_quotas_request> {
    using response = protocol::alter_client_quotas_response;
    static constexpr auto operation = &controller::do_alter_client_quotas;
    static auto& entries(auto& r) { return r.entries; }
    static void name_entries(const protocol::alter_client_quotas_request& q, response& r) {
        for (const auto& e : q.entries) {
            auto& out = r.entries.emplace_back();
            for (const auto& part : e.entity) {
                auto& d = out.entity.emplace_back();
                d.entity_type = part.entity_type;
                d.entity_name = part.entity_name;
            }
        }
    }
};

// AlterPartitionReassignments answers per partition, within each topic: its
// entries are nested, so it says how to visit them.
template <>
struct controller_api<protocol::alter_partition_reassignments_request> {
    using response = protocol::alter_partition_reassignments_response;
    static constexpr auto operation = &controller::do_alter_partition_reassignments;
    static void name_entries(const protocol::alter_partition_reassignments_request& q,
                             response& r) {
        for (const auto& t : q.topics) {
            auto& rt = r.responses.emplace_back();
            rt.name = t.name;
            for (const auto& p : t.partitions) {
                rt.partitions.emplace_back().partition_index = p.partition_index;
            }
        }
    }
    template <typename R, typename F>
    static void for_each_entry(R& r, F&& f) {
        for (auto& t : r.responses) {
            for (auto& p : t.partitions) {
                f(p);
            }
        }
    }
};

// UpdateFeatures fails or succeeds as a whole: its top-level error, and each
// feature's result (which it has only on success).
template <>
struct controller_api<protocol::update_features_request> {
    using response = protocol::update_features_response;
    static constexpr auto operation = &controller::do_update_features;
    static void name_entries(const protocol::update_features_request&, response&) {}
    template <typename R, typename F>
    static void for_each_entry(R& r, F&& f) {
        f(r);
        for (auto& e : r.results) {
            f(e);
        }
    }
};

// The response is its one entry: a top-level error and message.
template <>
struct controller_api<protocol::unregister_broker_request> {
    using response = protocol::unregister_broker_response;
    static constexpr auto operation = &controller::do_unregister_broker;
    static void name_entries(const protocol::unregister_broker_request&, response&) {}
    template <typename R, typename F>
    static void for_each_entry(R& r, F&& f) {
        f(r);
    }
};

// ---- what follows from an entry

namespace detail {
// Every item of a response: its `entries`, or what its `for_each_entry` visits.
template <typename Request, typename Response, typename F>
void for_each_entry(Response& r, F&& f) {
    if constexpr (requires { controller_api<Request>::for_each_entry(r, f); }) {
        controller_api<Request>::for_each_entry(r, f);
    } else {
        for (auto& e : controller_api<Request>::entries(r)) {
            f(e);
        }
    }
}

template <typename Request, typename Entry>
void set_error(Entry& e, error_code code, const std::optional<std::string>& message) {
    e.error_code = to_wire(code);
    e.error_message = message;
    if constexpr (requires { controller_api<Request>::on_error(e); }) {
        controller_api<Request>::on_error(e);
    }
}
}  // namespace detail

template <controller_served Request>
response_of<Request> answer_with(const Request& request, error_code code,
                                 std::optional<std::string> message = std::nullopt) {
    response_of<Request> r;
    controller_api<Request>::name_entries(request, r);
    detail::for_each_entry<Request>(r,
                                    [&](auto& e) { detail::set_error<Request>(e, code, message); });
    return r;
}

// A planned operation whose batch did not commit did nothing: every item that
// would have succeeded gets the commit's error instead.
template <controller_served Request>
void fail_pending(response_of<Request>& r, const error& e) {
    const auto message = e.message.empty() ? std::nullopt : std::optional(e.message);
    detail::for_each_entry<Request>(r, [&](auto& entry) {
        if (entry.error_code == 0) {
            detail::set_error<Request>(entry, e.code, message);
        }
    });
}

template <controller_served Request>
bool names_not_controller(const response_of<Request>& r) {
    bool named = false;
    detail::for_each_entry<Request>(r, [&named](const auto& e) {
        named = named || e.error_code == to_wire(error_code::not_controller);
    });
    return named;
}

// Any thread: runs the request's operation on the controller thread, and
// resumes on the caller's executor once what it appended has committed (on a
// failed commit, every item carries the commit's error).
template <controller_served Request>
asio::awaitable<response_of<Request>> submit(controller& c, Request request) {
    std::optional<response_of<Request>> out;
    auto run = [&] { out.emplace(std::invoke(controller_api<Request>::operation, c, request)); };
    auto fail = [&](const error& e) { fail_pending<Request>(*out, e); };
    co_await c.run_committed(run, fail);
    co_return std::move(*out);
}

}  // namespace samsa::metadata
