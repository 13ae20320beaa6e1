#pragma once
// DescribeClientQuotas from a broker's image (KIP-546, Kafka's
// ClientQuotasImage.describe). Each filter component names an entity type
// and matches it exactly (match type 0, a name), as the default (1, no
// name) or as any name (2, "specified"). An entity matches when every
// component matches one of its entries; strict also requires it to have no
// other entries. No components: every entity, unless strict. A bad filter
// (an empty or repeated type, an unknown match type, ip with user or
// client-id) is INVALID_REQUEST and an unknown type UNSUPPORTED_VERSION,
// with Kafka's messages.
#include "metadata/metadata_image.h"
#include "protocol/generated/describe_client_quotas_request.h"
#include "protocol/generated/describe_client_quotas_response.h"

namespace samsa::metadata {

protocol::describe_client_quotas_response describe_client_quotas(
    const metadata_image& image, const protocol::describe_client_quotas_request& request);

}  // namespace samsa::metadata
