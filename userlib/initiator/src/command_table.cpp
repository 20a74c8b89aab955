// The commands in flight and the checks of each completion; see command_table.hpp.
#include "rblk/bypass/command_table.hpp"

#include <stdexcept>

extern "C" {
#include "cid.h"  // kmod/shared/cid.h: the module's command id encoding
}
// The kernel shim's min()/max() macros would break the C++ library.
#undef min
#undef max

namespace rblk::bypass {

const char* describe(CqeVerdict v)
{
    switch (v) {
    case CqeVerdict::Ok: return "ok";
    case CqeVerdict::UnknownCid: return "completion with an unknown command id";
    case CqeVerdict::StaleGeneration: return "completion with a stale command id";
    case CqeVerdict::Duplicate: return "second completion of a command";
    }
    return "invalid completion";
}

CommandTable::CommandTable(std::uint16_t depth) : slots_(depth)
{
    if (depth == 0 || depth > RBLK_CID_TAG_MASK + 1)
        throw std::invalid_argument("queue depth " + std::to_string(depth) + " out of range (1..4096)");
    free_.reserve(depth);
    for (std::uint16_t t = depth; t > 0; --t)
        free_.push_back(static_cast<std::uint16_t>(t - 1));  // tag 0 first
}

std::optional<std::uint16_t> CommandTable::acquire(Clock::time_point deadline)
{
    if (free_.empty())
        return std::nullopt;
    const std::uint16_t tag = free_.back();
    free_.pop_back();
    Slot& s = slots_[tag];
    s.busy = true;
    s.responded = false;
    s.send_done = false;
    s.gen = static_cast<std::uint8_t>((s.gen + 1) & RBLK_CID_GEN_MASK);
    s.deadline = deadline;
    ++in_flight_;
    return tag;
}

std::uint16_t CommandTable::cid(std::uint16_t tag) const { return rblk_cid(tag, slots_[tag].gen); }

CqeVerdict CommandTable::on_response(std::uint16_t cid, std::uint16_t& tag)
{
    const std::uint16_t t = rblk_cid_tag(cid);
    if (t >= slots_.size() || !slots_[t].busy)
        return CqeVerdict::UnknownCid;
    Slot& s = slots_[t];
    if (s.gen != rblk_cid_gen(cid))
        return CqeVerdict::StaleGeneration;
    if (s.responded)
        return CqeVerdict::Duplicate;
    s.responded = true;
    tag = t;
    return CqeVerdict::Ok;
}

void CommandTable::on_send_done(std::uint16_t tag)
{
    if (tag < slots_.size())
        slots_[tag].send_done = true;
}

void CommandTable::release(std::uint16_t tag)
{
    Slot& s = slots_[tag];
    if (!s.busy)
        return;
    s.busy = false;
    --in_flight_;
    free_.push_back(tag);
}

std::optional<std::uint16_t> CommandTable::expired(Clock::time_point now) const
{
    for (std::size_t t = 0; t < slots_.size(); ++t)
        if (slots_[t].busy && !slots_[t].responded && slots_[t].deadline <= now)
            return static_cast<std::uint16_t>(t);
    return std::nullopt;
}

std::vector<std::uint16_t> CommandTable::busy() const
{
    std::vector<std::uint16_t> tags;
    for (std::size_t t = 0; t < slots_.size(); ++t)
        if (slots_[t].busy)
            tags.push_back(static_cast<std::uint16_t>(t));
    return tags;
}

}  // namespace rblk::bypass
