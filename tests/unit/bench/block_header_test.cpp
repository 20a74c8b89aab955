#include <rblk/bench/block_header.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace rblk::bench {
namespace {

constexpr std::uint64_t kOffset = 0x12000;
constexpr BlockStamp kStamp{kOffset, 0xABCDEF, (std::uint64_t{3} << 32) | 77};

std::vector<std::byte> stamped(std::size_t size = 4096, BlockStamp stamp = kStamp)
{
    std::vector<std::byte> b(size);
    fill_block(b, stamp);
    return b;
}

template <typename T>
void poke(std::vector<std::byte>& b, std::size_t at, T v)
{
    std::memcpy(b.data() + at, &v, sizeof v);
}

MismatchKind kind_of(const std::vector<std::byte>& b, std::optional<Expected> e = std::nullopt)
{
    auto m = check_block(b, kOffset, e);
    EXPECT_TRUE(m.has_value());
    return m ? m->kind : MismatchKind::magic;
}

TEST(BlockHeader, RoundTrip)
{
    for (std::size_t size : {512u, 4096u, 65536u}) {
        auto b = stamped(size);
        EXPECT_FALSE(check_block(b, kOffset)) << size;
        EXPECT_FALSE(check_block(b, kOffset, Expected{kStamp.generation, kStamp.sequence}));
    }
}

TEST(BlockHeader, LayoutIsTheDocumentedOne)
{
    auto b = stamped();
    EXPECT_EQ(std::memcmp(b.data(), "RBLKBNCH", 8), 0);
    std::uint64_t off;
    std::memcpy(&off, b.data() + 8, 8);
    EXPECT_EQ(off, kOffset);
    std::uint32_t size;
    std::memcpy(&size, b.data() + 32, 4);
    EXPECT_EQ(size, 4096u);
}

TEST(BlockHeader, PayloadDiffersPerWrite)
{
    auto a = stamped(4096, kStamp);
    auto b = stamped(4096, {kStamp.offset, kStamp.generation, kStamp.sequence + 1});
    EXPECT_NE(std::memcmp(a.data() + kBlockHeaderSize, b.data() + kBlockHeaderSize,
                          4096 - kBlockHeaderSize),
              0);
}

TEST(BlockHeader, DetectsBadMagic)
{
    std::vector<std::byte> zeros(4096);
    auto m = check_block(zeros, kOffset);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->kind, MismatchKind::magic);
    EXPECT_EQ(m->expected, kBlockMagic);
    EXPECT_EQ(m->actual, 0u);
    EXPECT_EQ(m->offset, kOffset);
    auto b = stamped();
    b[0] ^= std::byte{1};
    EXPECT_EQ(kind_of(b), MismatchKind::magic);
}

TEST(BlockHeader, DetectsWrongBlockSize)
{
    auto b = stamped();
    poke<std::uint32_t>(b, 32, 8192);
    auto m = check_block(b, kOffset);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->kind, MismatchKind::block_size);
    EXPECT_EQ(m->expected, 4096u);
    EXPECT_EQ(m->actual, 8192u);
}

TEST(BlockHeader, DetectsMisdirectedBlock)
{
    // An intact block, but written for another offset.
    auto b = stamped(4096, {kOffset + 4096, kStamp.generation, kStamp.sequence});
    auto m = check_block(b, kOffset);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->kind, MismatchKind::offset);
    EXPECT_EQ(m->expected, kOffset);
    EXPECT_EQ(m->actual, kOffset + 4096);
}

TEST(BlockHeader, DetectsPayloadCorruption)
{
    for (std::size_t at : {kBlockHeaderSize, std::size_t{2048}, std::size_t{4095}}) {
        auto b = stamped();
        b[at] ^= std::byte{0x40};
        EXPECT_EQ(kind_of(b), MismatchKind::crc) << at;
    }
}

TEST(BlockHeader, CrcCoversHeaderFields)
{
    auto b = stamped();
    poke<std::uint64_t>(b, 24, kStamp.sequence ^ 1);  // sequence field flipped in place
    EXPECT_EQ(kind_of(b), MismatchKind::crc);
    auto c = stamped();
    c[36] ^= std::byte{1};  // the crc itself
    EXPECT_EQ(kind_of(c), MismatchKind::crc);
}

TEST(BlockHeader, DetectsStaleGeneration)
{
    auto b = stamped();
    auto m = check_block(b, kOffset, Expected{kStamp.generation + 1, kStamp.sequence});
    ASSERT_TRUE(m);
    EXPECT_EQ(m->kind, MismatchKind::generation);
    EXPECT_EQ(m->expected, kStamp.generation + 1);
    EXPECT_EQ(m->actual, kStamp.generation);
}

TEST(BlockHeader, DetectsStaleSequence)
{
    // An older intact write of the same block: only the sequence tells.
    auto b = stamped();
    auto m = check_block(b, kOffset, Expected{kStamp.generation, kStamp.sequence + 1});
    ASSERT_TRUE(m);
    EXPECT_EQ(m->kind, MismatchKind::sequence);
    EXPECT_EQ(m->actual, kStamp.sequence);
}

TEST(BlockHeader, DescribeNamesOffsetAndValues)
{
    const Mismatch m{0x3000, MismatchKind::crc, 0xdead, 0xbeef};
    EXPECT_EQ(describe(m), "offset 0x3000: crc32c mismatch: expected 0xdead, got 0xbeef");
    const Mismatch z{0x1000, MismatchKind::magic, kBlockMagic, 0};
    EXPECT_EQ(describe(z),
              "offset 0x1000: bad magic: expected 0x48434e424b4c4252, got 0x0 "
              "(never written with --verify?)");
}

}  // namespace
}  // namespace rblk::bench
