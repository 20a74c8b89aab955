// CRC-32C (Castagnoli), as NVMe, iSCSI and ext4 use it: the SSE4.2 crc32
// instruction when the CPU has it, a slicing-by-8 table otherwise.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rblk::bench {

// Continues a CRC: pass the previous result as `crc` (0 to start).
// crc32c("123456789") == 0xE3069283.
std::uint32_t crc32c(const void* data, std::size_t len, std::uint32_t crc = 0);

// The portable path alone, so tests can check both agree.
std::uint32_t crc32c_sw(const void* data, std::size_t len, std::uint32_t crc = 0);

}  // namespace rblk::bench
