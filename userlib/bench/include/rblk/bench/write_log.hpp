// --verify's memory of one job's range: per block, the sequence number of the
// last completed write (0: not written by this run) and whether I/O to it is
// in flight. It keeps two I/Os off one block at a time and tells every read
// exactly which write it must return.
#pragma once

#include <cstdint>
#include <vector>

namespace rblk::bench {

class WriteLog {
public:
    static constexpr std::uint32_t kMaxSequence = (1u << 31) - 1;

    WriteLog() = default;
    // `last_sequence`: where numbering resumes (tests start near the wrap).
    explicit WriteLog(std::uint64_t blocks, std::uint32_t last_sequence = 0)
        : entries_(blocks, 0), sequence_(last_sequence)
    {
    }

    bool busy(std::uint64_t block) const { return entries_[block] & kBusy; }
    void begin(std::uint64_t block) { entries_[block] |= kBusy; }
    void end_read(std::uint64_t block) { entries_[block] &= ~kBusy; }
    void end_write(std::uint64_t block, std::uint32_t sequence) { entries_[block] = sequence; }

    // 0 when this run has not written the block.
    std::uint32_t last_write(std::uint64_t block) const { return entries_[block] & ~kBusy; }

    // The first block at or after `from` this run wrote; size() when none.
    std::uint64_t next_written(std::uint64_t from) const
    {
        while (from < entries_.size() && last_write(from) == 0)
            ++from;
        return from;
    }
    std::uint64_t size() const { return entries_.size(); }

    // 1, 2, ... kMaxSequence, 1, ...: never 0, which means "not written".
    std::uint32_t next_sequence()
    {
        sequence_ = sequence_ % kMaxSequence + 1;
        return sequence_;
    }

private:
    static constexpr std::uint32_t kBusy = 1u << 31;
    std::vector<std::uint32_t> entries_;
    std::uint32_t sequence_ = 0;
};

}  // namespace rblk::bench
