#pragma once
// CRC32C (Castagnoli), the checksum of record batch v2. Uses the SSE4.2 crc32
// instruction when the CPU has it and a slicing-by-8 table otherwise; both give
// identical results (RFC 3720 test vectors in tests/unit/common/crc32c_test.cc).
#include <cstddef>
#include <cstdint>

namespace samsa {

// Extends `crc` (0 to start) over [data, data+len).
uint32_t crc32c_extend(uint32_t crc, const void* data, size_t len);
inline uint32_t crc32c(const void* data, size_t len) {
    return crc32c_extend(0, data, len);
}

// The portable implementation, exposed so tests can compare it with the hardware one.
uint32_t crc32c_extend_portable(uint32_t crc, const void* data, size_t len);
bool crc32c_hardware_available();

}  // namespace samsa
