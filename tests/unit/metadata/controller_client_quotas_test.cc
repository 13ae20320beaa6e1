// AlterClientQuotas on the controller and DescribeClientQuotas from the
// image: what becomes a record, what each malformed entry answers, how a
// filter matches, and that quotas survive a restart and a snapshot.
#include <gtest/gtest.h>

#include "controller_fixture.h"
#include "metadata/client_quota_describe.h"
#include "metadata/image_records.h"
#include "metadata/metadata_delta.h"

namespace samsa::metadata {
namespace {

using testing::controller_fixture;
using request = protocol::alter_client_quotas_request;
using name = std::optional<std::string>;

request::entry_data entry(std::vector<std::pair<std::string, name>> entity,
                          std::vector<std::pair<std::string, std::optional<double>>> ops) {
    request::entry_data e;
    for (auto& [type, n] : entity) {
        auto& d = e.entity.emplace_back();
        d.entity_type = type;
        d.entity_name = n;
    }
    for (auto& [key, value] : ops) {
        auto& op = e.ops.emplace_back();
        op.key = key;
        op.value = value.value_or(0);
        op.remove = !value;
    }
    return e;
}

class controller_client_quotas : public controller_fixture {
  protected:
    void SetUp() override {
        controller_fixture::SetUp();
        register_self();
    }

    // Each entry's (error code, message), in request order.
    std::vector<std::pair<int16_t, std::string>> alter(std::vector<request::entry_data> entries,
                                                       bool validate_only = false) {
        request req;
        req.entries = std::move(entries);
        req.validate_only = validate_only;
        auto r = ctl().do_alter_client_quotas(req);
        std::vector<std::pair<int16_t, std::string>> out;
        for (const auto& e : r.entries) {
            out.emplace_back(e.error_code, e.error_message.value_or(""));
        }
        return out;
    }

    std::map<std::string, double> quotas_of(const client_quota_entity& entity) {
        auto it = image()->client_quotas.find(entity);
        return it == image()->client_quotas.end() ? std::map<std::string, double>{} : it->second;
    }
};

const int16_t invalid_request = to_wire(error_code::invalid_request);

TEST_F(controller_client_quotas, sets_changes_and_removes_quota_keys) {
    auto r = alter({entry({{"user", "alice"}},
                          {{"producer_byte_rate", 1048576}, {"consumer_byte_rate", 2097152}}),
                    entry({{"client-id", std::nullopt}}, {{"producer_byte_rate", 5000}})});
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].first, 0) << r[0].second;
    EXPECT_EQ(r[1].first, 0) << r[1].second;
    EXPECT_EQ(quotas_of({{"user", "alice"}}),
              (std::map<std::string, double>{{"consumer_byte_rate", 2097152},
                                             {"producer_byte_rate", 1048576}}));
    EXPECT_EQ(quotas_of({{"client-id", std::nullopt}}).at("producer_byte_rate"), 5000);

    const auto before = image()->offset;
    // Setting the same value again writes nothing; removing a key not held neither.
    EXPECT_EQ(alter({entry({{"user", "alice"}}, {{"producer_byte_rate", 1048576},
                                                 {"request_percentage", std::nullopt}})})[0]
                  .first,
              0);
    EXPECT_EQ(image()->offset, before);

    EXPECT_EQ(alter({entry({{"user", "alice"}},
                           {{"producer_byte_rate", std::nullopt}, {"consumer_byte_rate", 100}})})[0]
                  .first,
              0);
    EXPECT_EQ(quotas_of({{"user", "alice"}}),
              (std::map<std::string, double>{{"consumer_byte_rate", 100}}));
    // The entity goes with its last key.
    EXPECT_EQ(alter({entry({{"user", "alice"}}, {{"consumer_byte_rate", std::nullopt}})})[0].first,
              0);
    EXPECT_FALSE(image()->client_quotas.contains({{"user", "alice"}}));
}

TEST_F(controller_client_quotas, user_and_client_id_together_are_one_entity) {
    ASSERT_EQ(
        alter({entry({{"user", "alice"}, {"client-id", "app"}}, {{"producer_byte_rate", 1000}})})[0]
            .first,
        0);
    EXPECT_EQ(quotas_of({{"client-id", "app"}, {"user", "alice"}}).at("producer_byte_rate"), 1000);
    EXPECT_TRUE(quotas_of({{"user", "alice"}}).empty());
}

TEST_F(controller_client_quotas, malformed_entries_fail_alone_with_kafkas_messages) {
    auto r = alter({
        entry({}, {{"producer_byte_rate", 1}}),
        entry({{"group", "g"}}, {{"producer_byte_rate", 1}}),
        entry({{"user", ""}}, {{"producer_byte_rate", 1}}),
        entry({{"ip", "10.0.0.1"}, {"user", "u"}}, {{"producer_byte_rate", 1}}),
        entry({{"user", "a"}}, {{"producer_byte_rate", 1}, {"producer_byte_rate", 2}}),
        entry({{"user", "b"}}, {{"no_such_key", 1}}),
        entry({{"user", "c"}}, {{"producer_byte_rate", 10.5}}),
        entry({{"user", "d"}}, {{"consumer_byte_rate", -1}}),
        entry({{"user", "e"}}, {{"connection_creation_rate", 5}}),
        entry({{"user", "ok"}}, {{"producer_byte_rate", 1024}}),
    });
    ASSERT_EQ(r.size(), 10u);
    for (size_t i = 0; i + 1 < r.size(); ++i) {
        EXPECT_EQ(r[i].first, invalid_request) << i << ": " << r[i].second;
    }
    EXPECT_EQ(r[0].second, "Invalid empty client quota entity");
    EXPECT_EQ(r[1].second, "Unhandled client quota entity type: group");
    EXPECT_EQ(r[2].second, "Empty user not supported");
    EXPECT_EQ(r[3].second, "Invalid empty client quota entity");
    EXPECT_EQ(r[4].second,
              "Duplicate quota key producer_byte_rate not updating quota for this entity "
              "ClientQuotaEntity(entries={user=a})");
    EXPECT_EQ(r[5].second, "Invalid configuration key no_such_key");
    EXPECT_EQ(r[6].second, "Configuration producer_byte_rate must be a Long value");
    EXPECT_EQ(r[7].second, "Configuration consumer_byte_rate must be a positive value");
    EXPECT_EQ(r[8].second, "Invalid configuration key connection_creation_rate");
    EXPECT_EQ(r[9].first, 0) << r[9].second;
    // The failed entries wrote nothing; the good one did.
    ASSERT_EQ(image()->client_quotas.size(), 1u);
    EXPECT_TRUE(image()->client_quotas.contains({{"user", "ok"}}));
}

TEST_F(controller_client_quotas, a_quota_samsa_would_not_enforce_is_refused_by_name) {
    auto r = alter({entry({{"ip", "127.0.0.1"}}, {{"connection_creation_rate", 10}})});
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].first, invalid_request);
    EXPECT_EQ(r[0].second,
              "Quota connection_creation_rate is not enforced by this broker; only "
              "producer_byte_rate, consumer_byte_rate, request_percentage and "
              "controller_mutation_rate are");
    EXPECT_TRUE(image()->client_quotas.empty());
}

TEST_F(controller_client_quotas, request_percentage_and_controller_mutation_rate_are_kept) {
    auto r = alter({entry({{"user", "u"}}, {{"request_percentage", 12.5}}),
                    entry({{"client-id", "c"}}, {{"controller_mutation_rate", 10}})});
    EXPECT_EQ(r[0].first, 0) << r[0].second;
    EXPECT_EQ(r[1].first, 0) << r[1].second;
    EXPECT_EQ(quotas_of({{"user", "u"}}).at("request_percentage"), 12.5);
    EXPECT_EQ(quotas_of({{"client-id", "c"}}).at("controller_mutation_rate"), 10);
}

TEST_F(controller_client_quotas, a_repeated_entity_and_validate_only_write_nothing) {
    auto r = alter({entry({{"user", "u"}}, {{"producer_byte_rate", 1}}),
                    entry({{"user", "u"}}, {{"consumer_byte_rate", 1}})});
    EXPECT_EQ(r[0].first, 0);
    EXPECT_EQ(r[1].first, invalid_request);
    EXPECT_EQ(r[1].second, "Ignoring duplicate entity ClientQuotaEntity(entries={user=u})");

    const auto before = image()->offset;
    EXPECT_EQ(alter({entry({{"user", "v"}}, {{"producer_byte_rate", 1}})}, true)[0].first, 0);
    EXPECT_EQ(alter({entry({{"user", "v"}}, {{"bad", 1}})}, true)[0].first, invalid_request);
    EXPECT_EQ(image()->offset, before);
    EXPECT_FALSE(image()->client_quotas.contains({{"user", "v"}}));
}

TEST_F(controller_client_quotas, quotas_survive_a_restart_and_a_snapshot) {
    ASSERT_EQ(alter({entry({{"user", std::nullopt}, {"client-id", "x"}},
                           {{"producer_byte_rate", 7}, {"consumer_byte_rate", 9}})})[0]
                  .first,
              0);
    const auto quotas = image()->client_quotas;
    open();
    EXPECT_EQ(replayed->client_quotas, quotas);

    metadata_delta d(std::make_shared<metadata_image>());
    for (const auto& rec : image_to_records(*image())) {
        ASSERT_TRUE(d.apply(rec));
    }
    EXPECT_EQ(d.build(1)->client_quotas, quotas);
}

// ---- DescribeClientQuotas

using drequest = protocol::describe_client_quotas_request;

drequest::component_data exact(std::string type, std::string n) {
    return {std::move(type), 0, std::move(n), {}};
}
drequest::component_data by_default(std::string type) {
    return {std::move(type), 1, std::nullopt, {}};
}
drequest::component_data any(std::string type) {
    return {std::move(type), 2, std::nullopt, {}};
}

metadata_image quota_image() {
    metadata_image img;
    img.client_quotas[{{"user", "alice"}}] = {{"producer_byte_rate", 1}};
    img.client_quotas[{{"user", "alice"}, {"client-id", "app"}}] = {{"producer_byte_rate", 2}};
    img.client_quotas[{{"user", std::nullopt}}] = {{"producer_byte_rate", 3}};
    img.client_quotas[{{"client-id", "app"}}] = {{"consumer_byte_rate", 4}};
    img.client_quotas[{{"ip", "10.0.0.1"}}] = {{"connection_creation_rate", 5}};
    return img;
}

std::set<double> described(const protocol::describe_client_quotas_response& r) {
    std::set<double> out;
    if (!r.entries) {
        return out;
    }
    for (const auto& e : *r.entries) {
        for (const auto& v : e.values) {
            out.insert(v.value);
        }
    }
    return out;
}

protocol::describe_client_quotas_response describe(std::vector<drequest::component_data> c,
                                                   bool strict) {
    drequest req;
    req.components = std::move(c);
    req.strict = strict;
    return describe_client_quotas(quota_image(), req);
}

TEST(describe_client_quotas, filters_match_as_kafkas_image_does) {
    EXPECT_EQ(described(describe({}, false)), (std::set<double>{1, 2, 3, 4, 5}));
    EXPECT_EQ(described(describe({}, true)), (std::set<double>{}));
    EXPECT_EQ(described(describe({exact("user", "alice")}, false)), (std::set<double>{1, 2}));
    EXPECT_EQ(described(describe({exact("user", "alice")}, true)), (std::set<double>{1}));
    EXPECT_EQ(described(describe({by_default("user")}, true)), (std::set<double>{3}));
    EXPECT_EQ(described(describe({any("user")}, true)), (std::set<double>{1, 3}));
    EXPECT_EQ(described(describe({any("user"), exact("client-id", "app")}, true)),
              (std::set<double>{2}));
    EXPECT_EQ(described(describe({any("client-id")}, false)), (std::set<double>{2, 4}));
    EXPECT_EQ(described(describe({exact("ip", "10.0.0.1")}, true)), (std::set<double>{5}));
    // An entry names its entity and its values.
    auto r = describe({exact("client-id", "app")}, true);
    ASSERT_EQ(r.entries->size(), 1u);
    ASSERT_EQ(r.entries->at(0).entity.size(), 1u);
    EXPECT_EQ(r.entries->at(0).entity[0].entity_type, "client-id");
    EXPECT_EQ(r.entries->at(0).entity[0].entity_name, "app");
    EXPECT_EQ(r.entries->at(0).values[0].key, "consumer_byte_rate");
}

TEST(describe_client_quotas, bad_filters_answer_kafkas_errors) {
    auto check = [](std::vector<drequest::component_data> c, error_code code,
                    const std::string& message) {
        auto r = describe(std::move(c), false);
        EXPECT_EQ(r.error_code, to_wire(code)) << message;
        EXPECT_EQ(r.error_message.value_or(""), message);
        EXPECT_FALSE(r.entries);
    };
    check({exact("", "x")}, error_code::invalid_request, "Invalid empty entity type.");
    check({exact("user", "a"), any("user")}, error_code::invalid_request,
          "Entity type user cannot appear more than once in the filter.");
    check({exact("group", "g")}, error_code::unsupported_version, "Unsupported entity type group");
    check({{"user", 0, std::nullopt, {}}}, error_code::invalid_request,
          "Request specified MATCH_TYPE_EXACT, but set match string to null.");
    check({{"user", 1, "a", {}}}, error_code::invalid_request,
          "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.");
    check({{"user", 2, "a", {}}}, error_code::invalid_request,
          "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.");
    check({{"user", 7, std::nullopt, {}}}, error_code::invalid_request, "Unknown match type 7");
    check({any("ip"), exact("user", "a")}, error_code::invalid_request,
          "Invalid entity filter component combination. IP filter component should not be used "
          "with user or clientId filter component.");
}

}  // namespace
}  // namespace samsa::metadata
