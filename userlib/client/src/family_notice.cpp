#include "rblk/family_notice.hpp"

#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include <linux/genetlink.h>

#include <cstring>
#include <string>

namespace rblk {
namespace {

std::string_view nla_str(nlattr* a)
{
    const char* s = static_cast<const char*>(nla_data(a));
    return {s, strnlen(s, static_cast<std::size_t>(nla_len(a)))};
}

// CTRL_ATTR_MCAST_GROUPS: one nest per group with its name and id.
std::optional<std::uint32_t> group_id(nlattr* groups, std::string_view name)
{
    nlattr* entry;
    int rem;
    nla_for_each_nested(entry, groups, rem) {
        nlattr* tb[CTRL_ATTR_MCAST_GRP_MAX + 1] = {};
        if (nla_parse_nested(tb, CTRL_ATTR_MCAST_GRP_MAX, entry, nullptr) < 0)
            continue;
        if (tb[CTRL_ATTR_MCAST_GRP_NAME] && tb[CTRL_ATTR_MCAST_GRP_ID] &&
            nla_len(tb[CTRL_ATTR_MCAST_GRP_ID]) >= 4 &&
            nla_str(tb[CTRL_ATTR_MCAST_GRP_NAME]) == name)
            return nla_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
    }
    return std::nullopt;
}

}  // namespace

std::optional<FamilyNotice> parse_family_notice(nlmsghdr* hdr, std::string_view family,
                                                std::string_view group)
{
    if (hdr->nlmsg_type != GENL_ID_CTRL || !genlmsg_valid_hdr(hdr, 0))
        return std::nullopt;
    const std::uint8_t cmd = genlmsg_hdr(hdr)->cmd;
    if (cmd != CTRL_CMD_NEWFAMILY && cmd != CTRL_CMD_DELFAMILY)
        return std::nullopt;
    nlattr* tb[CTRL_ATTR_MAX + 1] = {};
    if (genlmsg_parse(hdr, 0, tb, CTRL_ATTR_MAX, nullptr) < 0 || !tb[CTRL_ATTR_FAMILY_NAME] ||
        nla_str(tb[CTRL_ATTR_FAMILY_NAME]) != family)
        return std::nullopt;
    FamilyNotice n;
    n.registered = cmd == CTRL_CMD_NEWFAMILY;
    if (tb[CTRL_ATTR_FAMILY_ID] && nla_len(tb[CTRL_ATTR_FAMILY_ID]) >= 2)
        n.family_id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
    if (tb[CTRL_ATTR_MCAST_GROUPS])
        n.group = group_id(tb[CTRL_ATTR_MCAST_GROUPS], group);
    return n;
}

}  // namespace rblk
