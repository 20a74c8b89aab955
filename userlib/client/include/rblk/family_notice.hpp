// nlctrl "notify" messages about one generic netlink family: the module that
// registers it going away (CTRL_CMD_DELFAMILY) and coming back
// (CTRL_CMD_NEWFAMILY, with a new family id and group ids). A pure parser,
// so tests feed it kernel-shaped messages without a kernel.
#pragma once

#include <netlink/msg.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace rblk {

struct FamilyNotice {
    bool registered = false;             // NEWFAMILY: true; DELFAMILY: false
    std::uint16_t family_id = 0;
    std::optional<std::uint32_t> group;  // id of the group asked for, when listed
};

// The notice in `hdr` when it is an nlctrl NEWFAMILY/DELFAMILY for `family`;
// `group` names the multicast group whose id to report. nullopt otherwise.
std::optional<FamilyNotice> parse_family_notice(nlmsghdr* hdr, std::string_view family,
                                                std::string_view group);

}  // namespace rblk
