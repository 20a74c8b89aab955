#include "rblk/bench/block_header.hpp"

#include "rblk/bench/crc32c.hpp"
#include "rblk/bench/prng.hpp"

#include <bit>
#include <cstdio>
#include <cstring>

namespace rblk::bench {
namespace {

static_assert(std::endian::native == std::endian::little,
              "the header is stored little-endian by plain copies");

constexpr std::size_t kMagicAt = 0, kOffsetAt = 8, kGenerationAt = 16, kSequenceAt = 24,
                      kSizeAt = 32, kCrcAt = 36;

template <typename T>
T load(std::span<const std::byte> b, std::size_t at)
{
    T v;
    std::memcpy(&v, b.data() + at, sizeof v);
    return v;
}

template <typename T>
void store(std::span<std::byte> b, std::size_t at, T v)
{
    std::memcpy(b.data() + at, &v, sizeof v);
}

std::uint32_t block_crc(std::span<const std::byte> b)
{
    std::uint32_t crc = crc32c(b.data(), kCrcAt);
    return crc32c(b.data() + kBlockHeaderSize, b.size() - kBlockHeaderSize, crc);
}

std::string hex(std::uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

}  // namespace

void fill_block(std::span<std::byte> block, const BlockStamp& stamp)
{
    store(block, kMagicAt, kBlockMagic);
    store(block, kOffsetAt, stamp.offset);
    store(block, kGenerationAt, stamp.generation);
    store(block, kSequenceAt, stamp.sequence);
    store(block, kSizeAt, static_cast<std::uint32_t>(block.size()));
    // Payload differs per write, so a stale copy of the block never passes
    // for a fresh one by accident.
    Xoshiro256 rng(stamp.generation ^ stamp.offset * 0x9E3779B97F4A7C15ULL ^ stamp.sequence);
    std::size_t at = kBlockHeaderSize;
    for (; at + 8 <= block.size(); at += 8)
        store(block, at, rng.next());
    for (; at < block.size(); ++at)
        block[at] = static_cast<std::byte>(rng.next());
    store(block, kCrcAt, block_crc(block));
}

std::string_view mismatch_name(MismatchKind kind)
{
    switch (kind) {
    case MismatchKind::magic: return "bad magic";
    case MismatchKind::block_size: return "block size mismatch";
    case MismatchKind::offset: return "offset mismatch";
    case MismatchKind::crc: return "crc32c mismatch";
    case MismatchKind::generation: return "generation mismatch";
    case MismatchKind::sequence: return "sequence mismatch";
    }
    return "?";
}

std::string describe(const Mismatch& m)
{
    std::string s = "offset " + hex(m.offset) + ": " + std::string(mismatch_name(m.kind)) +
                    ": expected " + hex(m.expected) + ", got " + hex(m.actual);
    if (m.kind == MismatchKind::magic)
        s += " (never written with --verify?)";
    return s;
}

std::optional<Mismatch> check_block(std::span<const std::byte> block, std::uint64_t offset,
                                    std::optional<Expected> expected)
{
    auto mismatch = [&](MismatchKind kind, std::uint64_t want, std::uint64_t got) {
        return std::optional<Mismatch>(Mismatch{offset, kind, want, got});
    };
    if (auto magic = load<std::uint64_t>(block, kMagicAt); magic != kBlockMagic)
        return mismatch(MismatchKind::magic, kBlockMagic, magic);
    if (auto size = load<std::uint32_t>(block, kSizeAt); size != block.size())
        return mismatch(MismatchKind::block_size, block.size(), size);
    if (auto off = load<std::uint64_t>(block, kOffsetAt); off != offset)
        return mismatch(MismatchKind::offset, offset, off);
    if (auto stored = load<std::uint32_t>(block, kCrcAt), computed = block_crc(block);
        stored != computed)
        return mismatch(MismatchKind::crc, stored, computed);
    if (expected) {
        if (auto gen = load<std::uint64_t>(block, kGenerationAt); gen != expected->generation)
            return mismatch(MismatchKind::generation, expected->generation, gen);
        if (auto seq = load<std::uint64_t>(block, kSequenceAt); seq != expected->sequence)
            return mismatch(MismatchKind::sequence, expected->sequence, seq);
    }
    return std::nullopt;
}

}  // namespace rblk::bench
