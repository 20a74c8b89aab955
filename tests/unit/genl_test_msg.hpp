// Test helpers that build "rblk" messages the way the kernel does
// (nla_put_u64_64bit puts a pad attribute before a misaligned u64), so the
// decoders are exercised on kernel-shaped input without a kernel.
#pragma once

#include <rblk/genl_socket.hpp>

#include <uapi/rblk.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace rblk::test {

constexpr int kFakeFamily = 0x20;

inline NlMsgPtr genl_msg(std::uint8_t cmd)
{
    NlMsgPtr msg(nlmsg_alloc());
    EXPECT_TRUE(msg);
    EXPECT_NE(genlmsg_put(msg.get(), 1, 7, kFakeFamily, 0, 0, cmd, RBLK_GENL_VERSION), nullptr);
    return msg;
}

// Like the kernel's nla_put_u64_64bit: a zero-length pad first, then the u64.
inline void put_u64_padded(nl_msg* msg, int type, std::uint64_t v, int pad_type)
{
    ASSERT_EQ(nla_put(msg, pad_type, 0, nullptr), 0);
    ASSERT_EQ(nla_put_u64(msg, type, v), 0);
}

inline void put_namespace(nl_msg* msg, std::uint32_t nsid, const std::string& disk,
                          std::uint64_t size, std::uint32_t lba)
{
    nlattr* entry = nla_nest_start(msg, RBLK_NS_ATTR_ENTRY);
    ASSERT_NE(entry, nullptr);
    ASSERT_EQ(nla_put_u32(msg, RBLK_NS_ATTR_NSID, nsid), 0);
    ASSERT_EQ(nla_put_string(msg, RBLK_NS_ATTR_DISK, disk.c_str()), 0);
    put_u64_padded(msg, RBLK_NS_ATTR_SIZE_BYTES, size, RBLK_NS_ATTR_PAD);
    ASSERT_EQ(nla_put_u32(msg, RBLK_NS_ATTR_LBA_SIZE, lba), 0);
    nla_nest_end(msg, entry);
}

// Offset of the first top-level attribute of `type` from the start of the message.
inline std::uint32_t offset_of(nl_msg* msg, int type)
{
    nlmsghdr* hdr = nlmsg_hdr(msg);
    nlattr* a = nla_find(genlmsg_attrdata(genlmsg_hdr(hdr), 0),
                         genlmsg_attrlen(genlmsg_hdr(hdr), 0), type);
    EXPECT_NE(a, nullptr);
    return static_cast<std::uint32_t>(reinterpret_cast<char*>(a) - reinterpret_cast<char*>(hdr));
}

}  // namespace rblk::test
