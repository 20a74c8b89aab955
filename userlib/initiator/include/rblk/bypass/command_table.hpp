// The commands a queue has in flight: one slot per tag (up to the queue
// depth), each command id the tag and a generation that every submission
// bumps, encoded by the module's own kmod/shared/cid.h. Every completion is
// checked here before it is believed, as the module does
// (kmod/rdma.c, rblk_rdma_process_cqe()): a command id naming no command in
// flight, a stale generation or a second response to the same command is
// a protocol error, which fails the queue (and leads to a reconnect) rather
// than completing the wrong command. Also holds each command's deadline,
// which starts at the first scan that finds the command in flight rather
// than at its submission: a submission reads no clock, and a deadline is
// late by at most the time between two scans (the queue's poll scans ten
// times a second), never early.
#pragma once

#include <time.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

namespace rblk::bypass {

// The clock of command deadlines and of the queue's periodic checks:
// CLOCK_MONOTONIC_COARSE, which the vDSO reads from the last tick without
// the TSC and its conversion; a deadline of seconds needs no finer grain
// than the tick (1-10 ms).
struct CoarseClock {
    using duration = std::chrono::nanoseconds;
    using rep = duration::rep;
    using period = duration::period;
    using time_point = std::chrono::time_point<CoarseClock>;
    static constexpr bool is_steady = true;
    static time_point now() noexcept
    {
        timespec ts{};
        ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
        return time_point(std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec));
    }
};

enum class CqeVerdict {
    Ok,               // the response of a command in flight
    UnknownCid,       // tag beyond the queue, or no command in flight there
    StaleGeneration,  // a command in flight there, but of another submission
    Duplicate,        // that command has already had its response
};

const char* describe(CqeVerdict v);

class CommandTable {
public:
    using Clock = CoarseClock;

    // kmod/shared/cid.h's encoding (a command id is the tag and the
    // generation above it), inline here; command_table.cpp checks that the
    // two agree.
    static constexpr unsigned kTagBits = 12;
    static constexpr std::uint16_t kTagMask = (1u << kTagBits) - 1;
    static constexpr std::uint8_t kGenMask = 0xf;

    // depth: 1..4096 (the tag bits of a command id).
    explicit CommandTable(std::uint16_t depth);

    std::uint16_t depth() const { return static_cast<std::uint16_t>(slots_.size()); }
    std::uint16_t in_flight() const { return in_flight_; }

    // A free tag, its generation bumped, marked in flight; nullopt when full.
    std::optional<std::uint16_t> acquire()
    {
        if (nfree_ == 0) [[unlikely]]
            return std::nullopt;
        const std::uint16_t tag = free_[--nfree_];
        Slot& s = slots_[tag];
        s.busy = true;
        s.responded = false;
        s.send_done = false;
        s.gen = static_cast<std::uint8_t>((s.gen + 1) & kGenMask);
        s.deadline = {};  // set by the next scan()
        ++in_flight_;
        return tag;
    }
    // The command id of the command in flight at `tag`.
    std::uint16_t cid(std::uint16_t tag) const
    {
        return static_cast<std::uint16_t>(tag | slots_[tag].gen << kTagBits);
    }

    // A response arrived for `cid`: checked, and on Ok recorded (tag set).
    CqeVerdict on_response(std::uint16_t cid, std::uint16_t& tag)
    {
        const std::uint16_t t = cid & kTagMask;
        if (t >= slots_.size() || !slots_[t].busy)
            return CqeVerdict::UnknownCid;
        Slot& s = slots_[t];
        if (s.gen != cid >> kTagBits)
            return CqeVerdict::StaleGeneration;
        if (s.responded)
            return CqeVerdict::Duplicate;
        s.responded = true;
        tag = t;
        return CqeVerdict::Ok;
    }
    // The SEND carrying the command completed (its buffer may be reused).
    void on_send_done(std::uint16_t tag)
    {
        if (tag < slots_.size())
            slots_[tag].send_done = true;
    }
    bool responded(std::uint16_t tag) const { return slots_[tag].responded; }
    bool send_done(std::uint16_t tag) const { return slots_[tag].send_done; }
    // Both: the slot may be released.
    bool finished(std::uint16_t tag) const { return responded(tag) && send_done(tag); }
    void release(std::uint16_t tag)
    {
        Slot& s = slots_[tag];
        if (!s.busy)
            return;
        s.busy = false;
        --in_flight_;
        free_[nfree_++] = tag;  // a tag is released once per acquire: never past depth
    }

    // The periodic check of deadlines: gives each command in flight that
    // no scan saw yet the deadline now + timeout, and returns the first
    // command in flight, without response, past its deadline.
    std::optional<std::uint16_t> scan(Clock::time_point now, Clock::duration timeout);
    // Every tag in flight (to fail them when the queue goes down).
    std::vector<std::uint16_t> busy() const;

private:
    struct Slot {
        bool busy = false;
        bool responded = false;
        bool send_done = false;
        std::uint8_t gen = 0;
        Clock::time_point deadline{};  // {}: not seen by a scan yet
    };
    std::vector<Slot> slots_;
    // The free tags, a stack: free_[0, nfree_). Sized once (depth), so that
    // a release is a store, with no growth path for the compiler to keep.
    std::vector<std::uint16_t> free_;
    std::uint16_t nfree_ = 0;
    std::uint16_t in_flight_ = 0;
};

}  // namespace rblk::bypass
