#include "rblk/controller.hpp"

#include <array>
#include <string_view>

namespace rblk {

std::string state_name(CtrlState state)
{
    static constexpr std::array<std::string_view, __RBLK_CTRL_STATE_MAX> kNames = {
        "new", "connecting", "live", "resetting", "deleting", "dead",
    };
    static_assert(kNames.back().size() > 0, "name every enum rblk_ctrl_state value");
    const auto i = static_cast<std::size_t>(state);
    if (i < kNames.size())
        return std::string(kNames[i]);
    return "unknown(" + std::to_string(i) + ")";
}

}  // namespace rblk
