#pragma once
// BrokerRegistration (key 62, controller listener): a broker announces itself
// to the active controller (KIP-631), which records it fenced and answers its
// broker epoch. NOT_CONTROLLER anywhere else.
#include "server/handler.h"

namespace samsa::server::handlers {

api_handler broker_registration_handler();

}  // namespace samsa::server::handlers
