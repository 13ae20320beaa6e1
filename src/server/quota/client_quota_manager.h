#pragma once
// Client byte-rate quotas on a broker (KIP-13, KIP-55, KIP-219): how fast
// each user and client id may produce (producer_byte_rate) and consume
// (consumer_byte_rate), from the ClientQuotaRecords in the metadata image.
//
// Which quota applies, and who shares it, is Kafka's DefaultQuotaCallback:
// the first entity holding the key among
//
//   user + client-id, user + default client-id, user,
//   default user + client-id, default user + default client-id, default user,
//   client-id, default client-id
//
// and the rate is kept per what that entity names: a quota on a user is
// shared by all its client ids, one on the default user is each user's own.
//
// A request is let through, its bytes recorded, and the client told how long
// to wait for its average rate to come back within the quota (Kafka's
// QuotaUtils.throttleTime: (rate - quota) / quota * window); the connection
// then reads nothing more for that long. Any thread may call; with no quota
// in the image nothing is locked or counted.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "common/sampled_rate.h"
#include "metadata/metadata_image.h"

namespace samsa::server::quota {

// The quota `key` that applies to the user and client id, and the names its
// rate is kept under ("" where the entity leaves a type out).
struct applied_quota {
    double bound = 0;
    std::string user;
    std::string client_id;
};
std::optional<applied_quota> find_client_quota(const metadata::metadata_image& image,
                                               std::string_view key, const std::string& user,
                                               const std::string& client_id);

// The user a quota names for a principal: "User:alice" is alice.
std::string quota_user(std::string_view principal);

class client_quota_manager {
  public:
    client_quota_manager(int samples, int64_t window_ms);

    // Records `value` against the quota `key` of the user and client id at
    // `now_ms`; the throttle time in milliseconds (0 within the quota or
    // without one).
    int32_t record(const metadata::metadata_image& image, std::string_view key,
                   const std::string& user, const std::string& client_id, double value,
                   int64_t now_ms);

    // The most one response may carry without being throttled for certain
    // (Kafka's maxValueInQuotaWindow: the quota over all but one window), or
    // nullopt without a quota.
    std::optional<int64_t> max_value_in_window(const metadata::metadata_image& image,
                                               std::string_view key, const std::string& user,
                                               const std::string& client_id) const;

    size_t rates() const;
    int64_t window_ms() const { return _window_ms; }

  private:
    struct tracked {
        sampled_rate rate;
        int64_t last_used_ms;
    };
    void expire_idle(int64_t now_ms);

    const int _samples;
    const int64_t _window_ms;
    mutable std::mutex _mu;
    std::map<std::tuple<std::string, std::string, std::string>, tracked> _rates;
    int64_t _last_expiry_ms = 0;
};

}  // namespace samsa::server::quota
