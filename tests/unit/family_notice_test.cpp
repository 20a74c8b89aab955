// nlctrl notices of a family going away and coming back (rblk/family_notice.hpp),
// built the way the kernel's ctrl_fill_info() builds them, and the test that
// decides when a request may have gone to a stale family id (rblk/extack.hpp).
#include <rblk/extack.hpp>
#include <rblk/family_notice.hpp>
#include <rblk/genl_socket.hpp>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include <linux/genetlink.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <utility>
#include <vector>

namespace rblk {
namespace {

using Groups = std::vector<std::pair<std::string, std::uint32_t>>;

NlMsgPtr notice(std::uint8_t cmd, const char* family, std::uint16_t id, const Groups& groups,
                int type = GENL_ID_CTRL)
{
    NlMsgPtr msg(nlmsg_alloc());
    EXPECT_NE(genlmsg_put(msg.get(), 0, 0, type, 0, 0, cmd, 2), nullptr);
    EXPECT_EQ(nla_put_string(msg.get(), CTRL_ATTR_FAMILY_NAME, family), 0);
    EXPECT_EQ(nla_put_u16(msg.get(), CTRL_ATTR_FAMILY_ID, id), 0);
    if (!groups.empty()) {
        nlattr* list = nla_nest_start(msg.get(), CTRL_ATTR_MCAST_GROUPS);
        int i = 1;
        for (const auto& [name, gid] : groups) {
            nlattr* entry = nla_nest_start(msg.get(), i++);
            EXPECT_EQ(nla_put_u32(msg.get(), CTRL_ATTR_MCAST_GRP_ID, gid), 0);
            EXPECT_EQ(nla_put_string(msg.get(), CTRL_ATTR_MCAST_GRP_NAME, name.c_str()), 0);
            nla_nest_end(msg.get(), entry);
        }
        nla_nest_end(msg.get(), list);
    }
    return msg;
}

TEST(FamilyNotice, NewFamilyGivesTheNewIdAndTheGroupAskedFor)
{
    auto msg = notice(CTRL_CMD_NEWFAMILY, "rblk", 41, {{"other", 9}, {"events", 12}});
    const auto n = parse_family_notice(nlmsg_hdr(msg.get()), "rblk", "events");
    ASSERT_TRUE(n);
    EXPECT_TRUE(n->registered);
    EXPECT_EQ(n->family_id, 41);
    ASSERT_TRUE(n->group);
    EXPECT_EQ(*n->group, 12u);
}

TEST(FamilyNotice, DelFamilyIsTheModuleGoing)
{
    auto msg = notice(CTRL_CMD_DELFAMILY, "rblk", 41, {{"events", 12}});
    const auto n = parse_family_notice(nlmsg_hdr(msg.get()), "rblk", "events");
    ASSERT_TRUE(n);
    EXPECT_FALSE(n->registered);
    EXPECT_EQ(n->family_id, 41);
}

TEST(FamilyNotice, NoGroupListMeansNoGroupId)
{
    auto msg = notice(CTRL_CMD_NEWFAMILY, "rblk", 41, {});
    const auto n = parse_family_notice(nlmsg_hdr(msg.get()), "rblk", "events");
    ASSERT_TRUE(n);
    EXPECT_FALSE(n->group);
    auto other = notice(CTRL_CMD_NEWFAMILY, "rblk", 41, {{"eventsX", 3}});
    EXPECT_FALSE(parse_family_notice(nlmsg_hdr(other.get()), "rblk", "events")->group);
}

TEST(FamilyNotice, OtherFamiliesCommandsAndSendersAreIgnored)
{
    auto other_family = notice(CTRL_CMD_NEWFAMILY, "rblkx", 41, {});
    EXPECT_FALSE(parse_family_notice(nlmsg_hdr(other_family.get()), "rblk", "events"));
    auto group_notice = notice(CTRL_CMD_NEWMCAST_GRP, "rblk", 41, {{"events", 12}});
    EXPECT_FALSE(parse_family_notice(nlmsg_hdr(group_notice.get()), "rblk", "events"));
    auto not_nlctrl = notice(CTRL_CMD_NEWFAMILY, "rblk", 41, {}, 0x30);
    EXPECT_FALSE(parse_family_notice(nlmsg_hdr(not_nlctrl.get()), "rblk", "events"));
}

TEST(FamilyNotice, StaleFamilyOnlyForBareEnoentOrEopnotsupp)
{
    EXPECT_TRUE(family_may_be_stale(KernelAck{-ENOENT, "", std::nullopt, std::nullopt}));
    EXPECT_TRUE(family_may_be_stale(KernelAck{-EOPNOTSUPP, "", std::nullopt, std::nullopt}));
    // rblk's own refusals carry a message: never retried.
    EXPECT_FALSE(family_may_be_stale(KernelAck{-ENOENT, "no such thing", std::nullopt, std::nullopt}));
    EXPECT_FALSE(family_may_be_stale(KernelAck{-ENODEV, "", std::nullopt, std::nullopt}));
    EXPECT_FALSE(family_may_be_stale(KernelAck{0, "", std::nullopt, std::nullopt}));
}

}  // namespace
}  // namespace rblk
