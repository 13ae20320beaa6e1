#pragma once
// What the transaction API handlers share: the KIP-588 rule that clients of
// a request version older than PRODUCER_FENCED's introduction (Kafka 2.7)
// hear INVALID_PRODUCER_EPOCH instead.
#include <cstdint>

#include <string>

#include "common/error.h"
#include "server/authorization.h"

namespace samsa::server::handlers {

// `first_fenced_version`: the first version of the API whose clients know
// PRODUCER_FENCED.
inline error_code txn_error_for_version(error_code ec, int16_t version,
                                        int16_t first_fenced_version) {
    if (ec == error_code::producer_fenced && version < first_fenced_version) {
        return error_code::invalid_producer_epoch;
    }
    return ec;
}

// A transactional producer needs WRITE on its transactional id (KIP-11).
inline bool may_write_transaction(const request_context& ctx, const std::string& id) {
    return authorized(ctx, acl::operation::write, acl::resource_type::transactional_id, id);
}

}  // namespace samsa::server::handlers
