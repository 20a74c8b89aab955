// The one-line reasons of failed Connects and RDMA CM rejects: the
// module's wording (kmod/fabrics.c, kmod/rdma.c) for the same causes.
#include <rblk/bypass/status.hpp>
#include <rblk/bypass/wire.hpp>

#include <gtest/gtest.h>

namespace rblk::bypass {
namespace {

constexpr std::uint16_t sc(std::uint16_t sct, std::uint16_t code) { return sct << 8 | code; }

TEST(ConnectError, InvalidParametersByOffset)
{
    const std::uint16_t invalid = sc(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_PARAM) | NVME_SC_DNR;
    EXPECT_EQ("Connect refused: subsystem NQN not found on the target",
              connect_error(invalid, 1u << 16 | 256));
    EXPECT_EQ("Connect refused: host NQN not accepted", connect_error(invalid, 1u << 16 | 512));
    EXPECT_EQ("Connect refused: controller ID no longer valid", connect_error(invalid, 1u << 16 | 16));
    EXPECT_EQ("Connect refused: invalid Connect data", connect_error(invalid, 1u << 16 | 17));
    EXPECT_EQ("Connect refused: invalid Connect command field", connect_error(invalid, 44));
}

TEST(ConnectError, OtherStatuses)
{
    EXPECT_EQ("Connect refused: host not allowed by the subsystem",
              connect_error(sc(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_HOST), 0));
    EXPECT_EQ("Connect refused: controller busy",
              connect_error(sc(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_CTRL_BUSY), 0));
    EXPECT_EQ("Connect refused: unsupported Connect format",
              connect_error(sc(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_FORMAT), 0));
    const std::string generic = connect_error(sc(NVME_SCT_GENERIC, NVME_SC_INTERNAL), 0);
    EXPECT_EQ(0u, generic.rfind("Connect failed: ", 0)) << generic;
}

TEST(IoStatus, Describe)
{
    EXPECT_TRUE(IoStatus{}.ok());
    EXPECT_TRUE(IoStatus::from_nvme(0).ok());
    const IoStatus e = IoStatus::from_nvme(NVME_SC_LBA_RANGE | NVME_SC_DNR);
    EXPECT_FALSE(e.ok());
    EXPECT_FALSE(e.retryable());
    EXPECT_NE(std::string::npos, e.describe().find("(do not retry)")) << e.describe();
    EXPECT_TRUE((IoStatus{IoStatus::Kind::QueueDown, 0}).retryable());
    EXPECT_TRUE((IoStatus{IoStatus::Kind::Timeout, 0}).retryable());
    EXPECT_FALSE((IoStatus{IoStatus::Kind::Invalid, 0}).retryable());
    EXPECT_EQ("command timed out", (IoStatus{IoStatus::Kind::Timeout, 0}).describe());
}

TEST(CmReject, Reasons)
{
    EXPECT_EQ("connection rejected (no NVMe-oF listener at this address?)",
              cm_reject_reason(false, nullptr, 0));
    CmReject rej{0, static_cast<std::uint16_t>(CmRejectStatus::InvalidHsqsize)};
    EXPECT_EQ("target rejected the RDMA connection: invalid host SQ size",
              cm_reject_reason(true, &rej, sizeof(rej)));
    // A consumer reject without the NVMe-oF record: no listener of ours.
    EXPECT_EQ("connection rejected (no NVMe-oF listener at this address?)",
              cm_reject_reason(true, &rej, 2));
    rej.sts = 99;
    EXPECT_EQ("target rejected the RDMA connection: unknown reason",
              cm_reject_reason(true, &rej, sizeof(rej)));
    rej.sts = static_cast<std::uint16_t>(CmRejectStatus::NoResources);
    EXPECT_EQ("target rejected the RDMA connection: no resources",
              cm_reject_reason(true, &rej, sizeof(rej)));
}

}  // namespace
}  // namespace rblk::bypass
