#include "net/blocking_call.h"

#include <asio/io_context.hpp>
#include <optional>

#include "net/kafka_rpc_client.h"

namespace samsa::net {

result<bytes> call_blocking(const blocking_target& to, int16_t api_key, int16_t api_version,
                            bytes body) {
    asio::io_context io;
    auto client = kafka_rpc_client::create(io.get_executor(), to.host, to.port, to.client_id,
                                           to.timeout, to.security);
    std::optional<result<bytes>> answer;
    client->call(api_key, api_version, std::move(body), [&](result<rpc_answer> r) {
        if (r) {
            answer.emplace(bytes(r->body.begin(), r->body.end()));
        } else {
            answer.emplace(r.err());
        }
        client->close();
    });
    io.run_for(to.timeout);
    if (!answer) {
        client->close();
        io.run_for(std::chrono::milliseconds(100));  // let the close run its handlers
        return error(error_code::request_timed_out,
                     "no answer from " + to.host + ":" + std::to_string(to.port));
    }
    return std::move(*answer);
}

}  // namespace samsa::net
