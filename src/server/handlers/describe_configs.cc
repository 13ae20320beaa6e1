#include "server/handlers/describe_configs.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "common/config/group_config.h"
#include "common/config/topic_config.h"
#include "common/error.h"
#include "metadata/config_view.h"
#include "metadata/metadata_record_serde.h"
#include "metadata/topic_name.h"
#include "protocol/generated/describe_configs_request.h"
#include "protocol/generated/describe_configs_response.h"
#include "server/authorization.h"
#include "server/handlers/broker_logger_configs.h"

namespace samsa::server::handlers {

namespace {

using protocol::describe_configs_request;
using protocol::describe_configs_response;
using resource_request = describe_configs_request::describe_configs_resource;
using resource_result = describe_configs_response::describe_configs_result;
using metadata::config_entry;
using metadata::config_resource_type;

struct describe_options {
    bool synonyms = false;
    bool documentation = false;
};

void add_entries(const std::vector<config_entry>& entries, const resource_request& rr,
                 const describe_options& opts, resource_result& out) {
    // Null or empty keys: every config (Kafka treats both alike).
    const bool all = !rr.configuration_keys || rr.configuration_keys->empty();
    for (const auto& e : entries) {
        if (!all && std::find(rr.configuration_keys->begin(), rr.configuration_keys->end(),
                              e.name) == rr.configuration_keys->end()) {
            continue;
        }
        auto& c = out.configs.emplace_back();
        c.name = e.name;
        c.value = e.sensitive ? std::nullopt : e.value;
        c.read_only = e.read_only;
        c.config_source = int8_t(e.source);
        c.is_default = e.source == config::config_source::default_config;
        c.is_sensitive = e.sensitive;
        c.config_type = config::describe_configs_type_id(e.type);
        c.documentation = opts.documentation ? std::optional(e.documentation) : std::nullopt;
        if (opts.synonyms) {
            for (const auto& s : e.synonyms) {
                auto& so = c.synonyms.emplace_back();
                so.name = s.name;
                so.value = e.sensitive ? std::nullopt : s.value;
                so.source = int8_t(s.source);
            }
        }
    }
}

// The configs of one resource, or the error Kafka's ConfigHelper gives.
result<std::vector<config_entry>> describe(const request_context& ctx,
                                           const metadata::metadata_image& image,
                                           const config::config_set& broker,
                                           const resource_request& rr) {
    switch (config_resource_type(rr.resource_type)) {
        case config_resource_type::topic: {
            if (auto v = metadata::validate_topic_name(rr.resource_name); !v) {
                return v.err();
            }
            if (!image.topic(rr.resource_name)) {
                return error(error_code::unknown_topic_or_partition,
                             fmt::format("The topic '{}' does not exist.", rr.resource_name));
            }
            auto resolved =
                config::resolve_topic_config(image.topic_overrides(rr.resource_name), broker);
            if (!resolved) {
                return resolved.err();
            }
            return std::move(resolved->entries);
        }
        case config_resource_type::broker: {
            if (rr.resource_name.empty()) {
                return metadata::describe_cluster_default_configs(broker);
            }
            int32_t id = 0;
            const auto& n = rr.resource_name;
            auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), id);
            if (ec != std::errc() || p != n.data() + n.size()) {
                return error(error_code::invalid_request,
                             fmt::format("Broker id must be an integer, but it is: {}", n));
            }
            if (id != ctx.broker->settings.node_id) {
                return error(error_code::invalid_request,
                             fmt::format("Unexpected broker id, expected {} or empty string, but "
                                         "received {}",
                                         ctx.broker->settings.node_id, n));
            }
            return metadata::describe_broker_configs(broker);
        }
        case config_resource_type::broker_logger:
            return describe_broker_loggers(ctx, rr.resource_name);
        case config_resource_type::group: {
            if (rr.resource_name.empty()) {
                return error(error_code::invalid_request, "Group name must not be empty");
            }
            return config::describe_group_configs(image.group_overrides(rr.resource_name), broker);
        }
        default:
            return error(error_code::invalid_request,
                         fmt::format("Unsupported resource type: {}", rr.resource_type));
    }
}

asio::awaitable<describe_configs_response> handle(request_context& ctx,
                                                  describe_configs_request& req) {
    auto image = ctx.broker->metadata.read();
    const config::config_set broker = metadata::effective_broker_config(
        ctx.broker->config->values, *image, ctx.broker->settings.node_id);
    const describe_options opts{req.include_synonyms, req.include_documentation};
    describe_configs_response resp;
    for (const auto& rr : req.resources) {
        auto& out = resp.results.emplace_back();
        out.resource_type = rr.resource_type;
        out.resource_name = rr.resource_name;
        if (auto why = config_refusal(ctx, acl::operation::describe_configs, rr.resource_type,
                                      rr.resource_name);
            why != error_code::none) {
            out.error_code = to_wire(why);
            out.error_message = std::nullopt;
            continue;
        }
        auto entries = describe(ctx, *image, broker, rr);
        if (!entries) {
            out.error_code = to_wire(entries.err().code);
            out.error_message = entries.err().message;
            continue;
        }
        out.error_message = std::nullopt;
        add_entries(*entries, rr, opts, out);
    }
    co_return resp;
}

}  // namespace

api_handler describe_configs_handler() {
    return {describe_configs_request::api_key, 0, describe_configs_request::max_version,
            &typed_handler<describe_configs_request, describe_configs_response, &handle>};
}

}  // namespace samsa::server::handlers
