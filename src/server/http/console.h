#pragma once
// The web console: one page (server/http/console/console.html, embedded in
// the binary at build time, no CDN) that draws the cluster from the admin
// API and /metrics: overview and throughput, topics and their partitions, a
// message browser, consumer groups and their lag, brokers, the quorum.
// Read-only: it changes nothing.
#include <string_view>

namespace samsa::server::http {

std::string_view console_html();

}  // namespace samsa::server::http
