#include "metadata/metadata_image.h"

namespace samsa::metadata {

bool is_internal_topic(const std::string& name) {
    return name == "__consumer_offsets" || name == "__transaction_state";
}

}  // namespace samsa::metadata
