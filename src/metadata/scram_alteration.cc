#include "metadata/scram_alteration.h"

#include <map>
#include <optional>
#include <set>

#include "common/error.h"
#include "security/sasl/scram.h"

namespace samsa::metadata {

namespace {

using security::sasl::scram_mechanism;

struct failure {
    error_code code;
    std::string message;
};

std::optional<failure> check_user_and_mechanism(const std::string& name, int8_t mechanism) {
    if (name.empty()) {
        return failure{error_code::unacceptable_credential, "Username must not be empty"};
    }
    const auto m = scram_mechanism(mechanism);
    if (m != scram_mechanism::sha256 && m != scram_mechanism::sha512) {
        return failure{error_code::unsupported_sasl_mechanism, "Unknown SCRAM mechanism"};
    }
    return std::nullopt;
}

}  // namespace

controller_plan<protocol::alter_user_scram_credentials_response> plan_alter_user_scram_credentials(
    const controller_state& state, const protocol::alter_user_scram_credentials_request& request) {
    controller_plan<protocol::alter_user_scram_credentials_response> plan;
    using deletion = protocol::alter_user_scram_credentials_request::scram_credential_deletion;
    using upsertion = protocol::alter_user_scram_credentials_request::scram_credential_upsertion;
    std::vector<const deletion*> deletions;
    std::vector<const upsertion*> upsertions;
    std::vector<std::pair<std::string, failure>> failures;
    std::set<std::string> failed;
    auto fail = [&](const std::string& name, failure f) {
        failed.insert(name);
        failures.emplace_back(name, std::move(f));
    };
    // A user named twice fails as a whole, whichever of its operations came first.
    auto drop = [&](auto& ops, const std::string& name) {
        auto before = ops.size();
        std::erase_if(ops, [&](const auto* op) { return op->name == name; });
        return ops.size() != before;
    };
    const auto duplicate = failure{error_code::duplicate_resource,
                                   "A user credential cannot be altered twice in the same request"};
    for (const auto& d : request.deletions) {
        if (failed.contains(d.name)) {
            continue;
        }
        if (drop(deletions, d.name)) {
            fail(d.name, duplicate);
        } else if (auto f = check_user_and_mechanism(d.name, d.mechanism)) {
            fail(d.name, std::move(*f));
        } else if (!state.image.find_scram_credential(d.name, scram_mechanism(d.mechanism))) {
            fail(d.name, {error_code::resource_not_found,
                          "Attempt to delete a user credential that does not exist"});
        } else {
            deletions.push_back(&d);
        }
    }
    for (const auto& u : request.upsertions) {
        if (failed.contains(u.name)) {
            continue;
        }
        if (drop(deletions, u.name) || drop(upsertions, u.name)) {
            fail(u.name, duplicate);
        } else if (auto f = check_user_and_mechanism(u.name, u.mechanism)) {
            fail(u.name, std::move(*f));
        } else if (u.iterations < security::sasl::scram_min_iterations) {
            fail(u.name, {error_code::unacceptable_credential, "Too few iterations"});
        } else if (u.iterations > security::sasl::scram_max_iterations) {
            fail(u.name, {error_code::unacceptable_credential, "Too many iterations"});
        } else {
            upsertions.push_back(&u);
        }
    }
    auto succeeded = [&](const std::string& name) {
        auto& r = plan.response.results.emplace_back();
        r.user = name;
        r.error_code = 0;
        r.error_message = std::nullopt;
    };
    for (const auto* d : deletions) {
        protocol::remove_user_scram_credential_record r;
        r.name = d->name;
        r.mechanism = d->mechanism;
        plan.records.emplace_back(std::move(r));
        succeeded(d->name);
    }
    for (const auto* u : upsertions) {
        const auto m = scram_mechanism(u->mechanism);
        auto c = security::sasl::scram_credential_from_salted(m, u->salt, u->salted_password,
                                                              u->iterations);
        protocol::user_scram_credential_record r;
        r.name = u->name;
        r.mechanism = u->mechanism;
        r.salt = std::move(c.salt);
        r.stored_key = std::move(c.stored_key);
        r.server_key = std::move(c.server_key);
        r.iterations = c.iterations;
        plan.records.emplace_back(std::move(r));
        succeeded(u->name);
    }
    for (auto& [name, f] : failures) {
        auto& r = plan.response.results.emplace_back();
        r.user = name;
        r.error_code = to_wire(f.code);
        r.error_message = std::move(f.message);
    }
    return plan;
}

}  // namespace samsa::metadata
