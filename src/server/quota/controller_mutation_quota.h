#pragma once
// The controller_mutation_rate quota (KIP-599): how many partitions a user or
// client id may create or delete per second through CreateTopics,
// CreatePartitions and DeleteTopics. Which quota applies, and who shares it,
// is the same rule as the byte rates (client_quota_manager.h).
//
// Each quota is a token bucket (Kafka's TokenBucket): it fills at the quota
// per second up to a burst of quota x controller.quota.window.num x
// controller.quota.window.size.seconds, starts full, and each topic takes its
// partitions from it. The bucket may go below zero: a request is let through
// while the bucket is not empty, however many partitions it then takes.
//
// A request sees its quota as Kafka's ControllerMutationQuota:
//   strict (CreateTopics v6+, CreatePartitions v3+, DeleteTopics v5+): a topic
//     that finds the bucket below zero is refused with THROTTLING_QUOTA_EXCEEDED
//     and so is every later topic of the request; the response's
//     throttle_time_ms is the time until the bucket is back at zero;
//   permissive (older versions, whose clients cannot retry such an error):
//     every topic goes through, and a bucket left below zero throttles the
//     response.
//
// The bucket is kept by the broker that accepts the request. Kafka keeps it on
// the active controller, to which brokers forward with the client's identity;
// a client sends these requests to the controller Metadata names, which here
// is the broker of the active controller when that node is a broker, so
// for such clients the two agree (docs/client-quotas.md).
#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "common/error.h"
#include "metadata/metadata_image.h"
#include "server/request_context.h"

namespace samsa::server::quota {

class controller_mutation_buckets {
  public:
    controller_mutation_buckets(int samples, int64_t window_ms);

    // Takes `permits` from the bucket of `user`/`client_id` at `now_ms`.
    // Strict: refused (accepted=false) while the bucket is below zero, and
    // the throttle is the time until it refills to zero. Permissive: always
    // taken, and the throttle is that time after taking. Without a quota:
    // accepted, no throttle.
    struct outcome {
        bool accepted = true;
        int32_t throttle_ms = 0;
    };
    outcome take(const metadata::metadata_image& image, const std::string& user,
                 const std::string& client_id, double permits, bool strict, int64_t now_ms);
    // Gives back what a topic took when the controller then refused it.
    void give_back(const metadata::metadata_image& image, const std::string& user,
                   const std::string& client_id, double permits, int64_t now_ms);

  private:
    struct bucket {
        double tokens = 0;
        int64_t last_ms = 0;
        bool fresh = true;
    };
    bucket* find(const metadata::metadata_image& image, const std::string& user,
                 const std::string& client_id, double& quota, double& burst, int64_t now_ms);

    const int _samples;
    const int64_t _window_ms;
    std::mutex _mu;
    std::map<std::pair<std::string, std::string>, bucket> _buckets;
    int64_t _last_expiry_ms = 0;
};

// One request's view of its quota (Kafka's Strict/PermissiveControllerMutationQuota).
class controller_mutation_quota {
  public:
    // Strict from `strict_since_version` of the request's API.
    controller_mutation_quota(const request_context& ctx, int16_t strict_since_version);

    // Counts a topic's `permits` partitions; false when it is refused
    // (THROTTLING_QUOTA_EXCEEDED), which in strict mode also holds for every
    // later topic once one was refused.
    bool record(double permits);
    // record() for the topic `name`, remembered so that give_back(name)
    // returns it if the controller refuses the topic; THROTTLING_QUOTA_EXCEEDED
    // or none.
    error_code charge(const std::string& name, double permits);
    void give_back(const std::string& name);
    // The throttle for the response: the last one recorded, less the time
    // since (the request may have waited for the controller meanwhile).
    int32_t throttle_ms() const;
    // Once the controller answered: gives back what each topic it refused
    // took (`name_of` names an entry's topic, or nullopt), and puts the
    // throttle in the response.
    template <typename Response, typename Entries, typename NameOf>
    void settle(Response& resp, const Entries& entries, NameOf name_of) {
        for (const auto& e : entries) {
            if (e.error_code != to_wire(error_code::none)) {
                if (std::optional<std::string> name = name_of(e)) {
                    give_back(*name);
                }
            }
        }
        resp.throttle_time_ms = std::max(resp.throttle_time_ms, throttle_ms());
    }

  private:
    const request_context& _ctx;
    controller_mutation_buckets* _buckets;
    bool _strict;
    int32_t _throttle_ms = 0;
    int64_t _recorded_at_ms = 0;
    std::map<std::string, double> _charged;
};

}  // namespace samsa::server::quota
