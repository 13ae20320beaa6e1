// libFuzzer target: the records of __transaction_state as the transaction
// coordinator reads them back when it loads a partition. The first byte
// picks the part; the rest is its bytes:
//   0  a TransactionLogKey (int16 version, then the key)
//   1  a TransactionLogValue (int16 version, then the value), re-encoded
//      when it decodes, and the re-encoding must decode to the same state
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "coordinator/txn/transaction_log_serde.h"

using namespace samsa;
using namespace samsa::coordinator::txn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) {
        return 0;
    }
    const bytes_view body(data + 1, size - 1);
    if (data[0] % 2 == 0) {
        (void)decode_transaction_log_key(body);
        return 0;
    }
    auto m = decode_transaction_log_value(body);
    if (!m) {
        return 0;
    }
    auto again = decode_transaction_log_value(encode_transaction_log_value(*m));
    if (!again || again->producer_id != m->producer_id ||
        again->producer_epoch != m->producer_epoch || again->state != m->state ||
        again->partitions != m->partitions || again->txn_timeout_ms != m->txn_timeout_ms) {
        std::abort();
    }
    return 0;
}
