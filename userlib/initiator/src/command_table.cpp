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

static_assert(CommandTable::kTagBits == RBLK_CID_TAG_BITS && CommandTable::kTagMask == RBLK_CID_TAG_MASK &&
                  CommandTable::kGenMask == RBLK_CID_GEN_MASK && (0xffffu >> RBLK_CID_TAG_BITS) == RBLK_CID_GEN_MASK,
              "command ids as the module's cid.h encodes them");

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
    free_.resize(depth);
    for (std::uint16_t t = depth; t > 0; --t)
        free_[nfree_++] = static_cast<std::uint16_t>(t - 1);  // tag 0 first
}

std::optional<std::uint16_t> CommandTable::scan(Clock::time_point now, Clock::duration timeout)
{
    std::optional<std::uint16_t> first;
    for (std::size_t t = 0; t < slots_.size(); ++t) {
        Slot& s = slots_[t];
        if (!s.busy || s.responded)
            continue;
        if (s.deadline == Clock::time_point{})
            s.deadline = now + timeout;
        else if (s.deadline <= now && !first)
            first = static_cast<std::uint16_t>(t);
    }
    return first;
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
