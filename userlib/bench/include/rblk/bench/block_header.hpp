// The --verify block format. Every block written under --verify starts with
// this header (little-endian) and is followed by a pseudo-random payload:
//
//   0  u64 magic       "RBLKBNCH"
//   8  u64 offset      where the block was meant to land (catches misdirected I/O)
//  16  u64 generation  the writing run's id
//  24  u64 sequence    (job << 32) | per-job write number: tells stale data apart
//  32  u32 block_size
//  36  u32 crc32c      over bytes [0, 36) and [40, block_size): header fields and payload
//
// A read checks magic, size, offset and crc; generation and sequence too when
// the reader knows what it last wrote there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace rblk::bench {

inline constexpr std::uint64_t kBlockMagic = 0x4843'4E42'4B4C'4252;  // "RBLKBNCH"
inline constexpr std::size_t kBlockHeaderSize = 40;

struct BlockStamp {
    std::uint64_t offset;
    std::uint64_t generation;
    std::uint64_t sequence;
};

// Header plus payload derived from the stamp; block.size() >= kBlockHeaderSize.
void fill_block(std::span<std::byte> block, const BlockStamp& stamp);

enum class MismatchKind { magic, block_size, offset, crc, generation, sequence };
std::string_view mismatch_name(MismatchKind kind);

struct Mismatch {
    std::uint64_t offset;    // where the block was read from
    MismatchKind kind;
    std::uint64_t expected;  // for crc: the stored crc; actual: the computed one
    std::uint64_t actual;
};

// "offset 0x1000: sequence mismatch: expected 0x..., got 0x..."
std::string describe(const Mismatch& m);

struct Expected {
    std::uint64_t generation;
    std::uint64_t sequence;
};

// nullopt when the block read at `offset` is intact (and, with `expected`,
// is exactly that write).
std::optional<Mismatch> check_block(std::span<const std::byte> block, std::uint64_t offset,
                                    std::optional<Expected> expected = std::nullopt);

}  // namespace rblk::bench
