#include "rblk/bench/crc32c.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace rblk::bench {
namespace {

constexpr std::uint32_t kPoly = 0x82F63B78;  // reflected Castagnoli polynomial

// table[k][b]: CRC of byte b followed by k zero bytes (slicing-by-8).
constexpr auto make_tables()
{
    std::array<std::array<std::uint32_t, 256>, 8> t{};
    for (std::uint32_t b = 0; b < 256; ++b) {
        std::uint32_t c = b;
        for (int i = 0; i < 8; ++i)
            c = (c >> 1) ^ ((c & 1) ? kPoly : 0);
        t[0][b] = c;
    }
    for (std::size_t k = 1; k < 8; ++k)
        for (std::uint32_t b = 0; b < 256; ++b)
            t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
    return t;
}
constexpr auto kTables = make_tables();

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t crc32c_hw(const unsigned char* p,
                                                          std::size_t len, std::uint32_t crc)
{
    std::uint64_t c = ~crc;
    for (; len >= 8; len -= 8, p += 8) {
        std::uint64_t word;
        std::memcpy(&word, p, 8);
        c = _mm_crc32_u64(c, word);
    }
    auto c32 = static_cast<std::uint32_t>(c);
    for (; len > 0; --len)
        c32 = _mm_crc32_u8(c32, *p++);
    return ~c32;
}

const bool kHaveSse42 = __builtin_cpu_supports("sse4.2");
#endif

}  // namespace

std::uint32_t crc32c_sw(const void* data, std::size_t len, std::uint32_t crc)
{
    auto p = static_cast<const unsigned char*>(data);
    std::uint32_t c = ~crc;
    for (; len >= 8; len -= 8, p += 8) {
        // Little-endian load: the byte order slicing-by-8 is derived for.
        std::uint32_t lo = c ^ (p[0] | p[1] << 8 | p[2] << 16 | static_cast<std::uint32_t>(p[3]) << 24);
        std::uint32_t hi = p[4] | p[5] << 8 | p[6] << 16 | static_cast<std::uint32_t>(p[7]) << 24;
        c = kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^
            kTables[5][(lo >> 16) & 0xFF] ^ kTables[4][lo >> 24] ^
            kTables[3][hi & 0xFF] ^ kTables[2][(hi >> 8) & 0xFF] ^
            kTables[1][(hi >> 16) & 0xFF] ^ kTables[0][hi >> 24];
    }
    for (; len > 0; --len)
        c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xFF];
    return ~c;
}

std::uint32_t crc32c(const void* data, std::size_t len, std::uint32_t crc)
{
#if defined(__x86_64__)
    if (kHaveSse42)
        return crc32c_hw(static_cast<const unsigned char*>(data), len, crc);
#endif
    return crc32c_sw(data, len, crc);
}

}  // namespace rblk::bench
