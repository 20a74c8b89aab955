#include <rblk/bench/crc32c.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string_view>
#include <vector>

namespace rblk::bench {
namespace {

TEST(Crc32c, KnownVectors)
{
    constexpr std::string_view check = "123456789";
    EXPECT_EQ(crc32c(check.data(), check.size()), 0xE3069283u);
    EXPECT_EQ(crc32c_sw(check.data(), check.size()), 0xE3069283u);
    // RFC 3720 (iSCSI) B.4: 32 bytes of zeros, of ones, ascending.
    std::vector<unsigned char> buf(32, 0);
    EXPECT_EQ(crc32c(buf.data(), buf.size()), 0x8A9136AAu);
    std::fill(buf.begin(), buf.end(), 0xFF);
    EXPECT_EQ(crc32c(buf.data(), buf.size()), 0x62A8AB43u);
    for (unsigned i = 0; i < 32; ++i)
        buf[i] = static_cast<unsigned char>(i);
    EXPECT_EQ(crc32c(buf.data(), buf.size()), 0x46DD794Eu);
    EXPECT_EQ(crc32c(nullptr, 0), 0u);
}

TEST(Crc32c, HardwareAndTableAgree)
{
    std::mt19937 gen(7);
    std::vector<unsigned char> buf(5000);
    for (auto& b : buf)
        b = static_cast<unsigned char>(gen());
    for (std::size_t off : {0u, 1u, 3u, 7u})
        for (std::size_t len : {0u, 1u, 7u, 8u, 9u, 63u, 4096u, 4999u - 7u})
            EXPECT_EQ(crc32c(buf.data() + off, len), crc32c_sw(buf.data() + off, len))
                << off << "+" << len;
}

TEST(Crc32c, ContinuesAcrossPieces)
{
    constexpr std::string_view s = "The quick brown fox jumps over the lazy dog";
    const auto whole = crc32c(s.data(), s.size());
    EXPECT_EQ(crc32c(s.data() + 10, s.size() - 10, crc32c(s.data(), 10)), whole);
    EXPECT_EQ(crc32c_sw(s.data() + 13, s.size() - 13, crc32c_sw(s.data(), 13)), whole);
}

}  // namespace
}  // namespace rblk::bench
