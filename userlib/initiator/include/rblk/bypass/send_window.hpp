// The send queue's occupancy, for SENDs posted mostly unsignaled (as the
// module's unsignaled SENDs, kmod/rdma.c): a command's capsule is
// free again once its response is in, since the response proves the
// target has it (a retransmission after that reads the next command's
// bytes and is dropped by the target as a duplicate). Only every
// sig_every-th SEND is signaled, so that the provider retires the WRs
// before it; its completion frees them all (an RC send queue completes in
// order). The window never lets the send queue overflow, and never
// deadlocks: when it is full, a signaled WR is among those it holds
// (depth is at least sig_every), and polling will reap it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>

namespace rblk::bypass {

class SendWindow {
public:
    // The most WRs between two signaled ones: enough to halve the
    // completions at depth 2, and few enough that a burst of reaped
    // completions stays within one poll batch.
    static constexpr std::uint32_t kMaxSigEvery = 16;

    // For a queue of `cmds` commands in flight at most (one SEND each).
    static std::uint32_t sig_every_for(std::uint32_t cmds)
    {
        return std::clamp<std::uint32_t>(cmds / 2, 1, kMaxSigEvery);
    }

    // depth: the send queue's WRs (room for twice the commands, so that
    // a full window is rare: it takes sig_every commands answered before
    // the provider saw their SENDs acknowledged); sig_every <= depth.
    SendWindow() = default;
    SendWindow(std::uint32_t depth, std::uint32_t sig_every) : depth_(depth), sig_every_(sig_every)
    {
        if (sig_every == 0 || sig_every > depth)
            throw std::invalid_argument("SendWindow: sig_every must be 1..depth");
    }

    std::uint32_t depth() const { return depth_; }
    std::uint32_t sig_every() const { return sig_every_; }
    // WRs posted and not yet retired by a signaled completion.
    std::uint32_t occupancy() const { return static_cast<std::uint32_t>(posted_ - retired_); }
    bool full() const { return occupancy() >= depth_; }

    // Takes the next WR's place (the caller checked !full()); whether it
    // is to be signaled, and its sequence number, for its wr_id.
    // `must_signal`: the caller needs this WR's own completion (a SEND
    // that reads memory the caller frees when the command ends); the
    // count to the next signaled WR starts again after it.
    struct Slot {
        std::uint64_t seq;
        bool signaled;
    };
    Slot take(bool must_signal = false)
    {
        const std::uint64_t seq = posted_++;
        const bool signaled = must_signal || seq + 1 - last_signaled_ >= sig_every_;
        if (signaled)
            last_signaled_ = seq + 1;
        return {seq, signaled};
    }

    // A wr_id holds a sequence number's low kSeqBits bits (the rest of it
    // names the queue, for a poll group): the WR of the window that has
    // them is the latest one posted with them, since the window is far
    // smaller than 2^kSeqBits. Bits no WR in the window has give a number
    // retire() refuses.
    static constexpr unsigned kSeqBits = 31;
    std::uint64_t seq_from_bits(std::uint64_t bits) const
    {
        constexpr std::uint64_t mask = (std::uint64_t{1} << kSeqBits) - 1;
        const std::uint64_t last = posted_ - 1;
        return last - ((last - bits) & mask);
    }

    // The signaled WR `seq` completed: it and every WR before it retired.
    // False for a sequence number that was never posted or is behind one
    // already retired (a provider bug, or a forged wr_id).
    bool retire(std::uint64_t seq)
    {
        if (seq >= posted_ || seq < retired_)
            return false;
        retired_ = seq + 1;
        return true;
    }

private:
    std::uint32_t depth_ = 1;
    std::uint32_t sig_every_ = 1;
    std::uint64_t posted_ = 0;
    std::uint64_t retired_ = 0;
    std::uint64_t last_signaled_ = 0;  // posted_ just after the last signaled WR
};

}  // namespace rblk::bypass
