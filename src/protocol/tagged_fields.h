#pragma once
// Tagged fields (KIP-482) of flexible versions that this build does not know:
// kept verbatim so that a decoded message re-encodes byte for byte.
#include <cstdint>
#include <vector>

#include "common/bytes.h"

namespace samsa::protocol {

struct raw_tagged_field {
    uint32_t tag = 0;
    bytes data;
    bool operator==(const raw_tagged_field&) const = default;
};

using unknown_tagged_fields = std::vector<raw_tagged_field>;

}  // namespace samsa::protocol
