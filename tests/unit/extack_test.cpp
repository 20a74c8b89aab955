// Extended-ack parsing and the mapping of the kernel's bad-attribute offset
// back to an attribute name of the request (rblk/extack.hpp).
#include "genl_test_msg.hpp"

#include <rblk/attr_codec.hpp>
#include <rblk/extack.hpp>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

namespace rblk {
namespace {

using test::genl_msg;
using test::offset_of;

NlMsgPtr connect_request()
{
    ConnectOptions o;
    o.traddr = "10.0.0.1";
    o.subnqn = "nqn.sub";
    o.queue_size = 64;
    auto msg = genl_msg(RBLK_CMD_CONNECT);
    put_connect_attrs(msg.get(), o);
    return msg;
}

struct AckTlvs {
    const char* message = nullptr;
    std::optional<std::uint32_t> offset;
    std::optional<std::uint32_t> missing_type;
};

// An NLMSG_ERROR as the kernel's netlink_ack() builds it.
NlMsgPtr kernel_error(nl_msg* request, int error, const AckTlvs& tlvs, bool capped = true)
{
    const nlmsghdr* req = nlmsg_hdr(request);
    int flags = capped ? NLM_F_CAPPED : 0;
    if (tlvs.message || tlvs.offset || tlvs.missing_type)
        flags |= NLM_F_ACK_TLVS;
    NlMsgPtr msg(nlmsg_alloc_simple(NLMSG_ERROR, flags));
    const std::size_t echoed = capped ? 0 : req->nlmsg_len - NLMSG_HDRLEN;
    auto* err = static_cast<nlmsgerr*>(nlmsg_reserve(msg.get(), sizeof(nlmsgerr) + echoed, NLMSG_ALIGNTO));
    EXPECT_NE(err, nullptr);
    err->error = error;
    std::memcpy(&err->msg, req, capped ? sizeof(nlmsghdr) : req->nlmsg_len);
    if (tlvs.message) {
        EXPECT_EQ(nla_put_string(msg.get(), NLMSGERR_ATTR_MSG, tlvs.message), 0);
    }
    if (tlvs.offset) {
        EXPECT_EQ(nla_put_u32(msg.get(), NLMSGERR_ATTR_OFFS, *tlvs.offset), 0);
    }
    if (tlvs.missing_type) {
        EXPECT_EQ(nla_put_u32(msg.get(), NLMSGERR_ATTR_MISS_TYPE, *tlvs.missing_type), 0);
    }
    return msg;
}

TEST(Extack, MessageAndOffsetNameTheAttribute)
{
    auto req = connect_request();
    const std::uint32_t off = offset_of(req.get(), RBLK_ATTR_QUEUE_SIZE);
    auto reply = kernel_error(req.get(), -EINVAL, {"queue_size out of range", off, {}});

    const KernelAck ack = parse_ack(nlmsg_hdr(reply.get()));
    EXPECT_EQ(ack.error, -EINVAL);
    EXPECT_EQ(ack.message, "queue_size out of range");
    EXPECT_EQ(ack.bad_offset, off);
    EXPECT_FALSE(ack.missing_type.has_value());

    const KernelError e = error_from_ack(ack, nlmsg_hdr(req.get()), "connect");
    EXPECT_EQ(e.errnum(), EINVAL);
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
    EXPECT_EQ(e.extack(), "queue_size out of range");
    EXPECT_EQ(e.attribute(), "queue_size");
    EXPECT_FALSE(e.attribute_missing());
    // The message already names the attribute: not repeated.
    EXPECT_STREQ(e.what(), "queue_size out of range");
}

TEST(Extack, UncappedAckWithEchoedRequestStillFindsTheTlvs)
{
    auto req = connect_request();
    const std::uint32_t off = offset_of(req.get(), RBLK_ATTR_TRADDR);
    auto reply = kernel_error(req.get(), -EADDRNOTAVAIL, {"no route", off, {}}, false);
    const KernelAck ack = parse_ack(nlmsg_hdr(reply.get()));
    EXPECT_EQ(ack.message, "no route");
    EXPECT_EQ(ack.bad_offset, off);
    EXPECT_EQ(error_from_ack(ack, nlmsg_hdr(req.get()), "connect").attribute(), "traddr");
}

TEST(Extack, EveryConnectAttributeMapsBackFromItsOffset)
{
    auto req = connect_request();
    for (int type : {RBLK_ATTR_TRANSPORT, RBLK_ATTR_TRADDR, RBLK_ATTR_TRSVCID, RBLK_ATTR_SUBNQN,
                     RBLK_ATTR_QUEUE_SIZE}) {
        const std::uint32_t off = offset_of(req.get(), type);
        EXPECT_EQ(attr_at_offset(nlmsg_hdr(req.get()), off), type);
        // An offset inside the attribute's payload still names it.
        EXPECT_EQ(attr_at_offset(nlmsg_hdr(req.get()), off + NLA_HDRLEN), type);
    }
}

TEST(Extack, OffsetOutsideTheAttributesNamesNothing)
{
    auto req = connect_request();
    const nlmsghdr* hdr = nlmsg_hdr(req.get());
    EXPECT_FALSE(attr_at_offset(hdr, 0).has_value());  // the nlmsghdr
    EXPECT_FALSE(attr_at_offset(hdr, NLMSG_HDRLEN).has_value());  // the genl header
    EXPECT_FALSE(attr_at_offset(hdr, hdr->nlmsg_len).has_value());
    auto reply = kernel_error(req.get(), -EINVAL, {"bad", hdr->nlmsg_len + 8, {}});
    const KernelError e = error_from_ack(parse_ack(nlmsg_hdr(reply.get())), hdr, "connect");
    EXPECT_EQ(e.attribute(), "");
    EXPECT_STREQ(e.what(), "bad");
}

TEST(Extack, MissingAttributeIsNamedAndMarked)
{
    auto req = connect_request();
    auto reply = kernel_error(req.get(), -EINVAL,
                              {"Missing attribute", {}, std::uint32_t{RBLK_ATTR_SUBNQN}});
    const KernelError e = error_from_ack(parse_ack(nlmsg_hdr(reply.get())), nlmsg_hdr(req.get()),
                                         "connect");
    EXPECT_EQ(e.attribute(), "subnqn");
    EXPECT_TRUE(e.attribute_missing());
    EXPECT_STREQ(e.what(), "Missing attribute (missing attribute: subnqn)");
}

TEST(Extack, KernelMessageNamingTheMissingAttributeIsNotRepeated)
{
    auto req = connect_request();
    auto reply = kernel_error(req.get(), -EINVAL,
                              {"missing required attribute: traddr", {},
                               std::uint32_t{RBLK_ATTR_TRADDR}});
    const KernelError e = error_from_ack(parse_ack(nlmsg_hdr(reply.get())), nlmsg_hdr(req.get()),
                                         "connect");
    EXPECT_EQ(e.attribute(), "traddr");
    EXPECT_TRUE(e.attribute_missing());
    EXPECT_STREQ(e.what(), "missing required attribute: traddr");
}

TEST(Extack, PlainErrorWithoutTlvsFallsBackToStrerrorAndContext)
{
    auto req = connect_request();
    auto reply = kernel_error(req.get(), -EPERM, {});
    const KernelAck ack = parse_ack(nlmsg_hdr(reply.get()));
    EXPECT_EQ(ack.error, -EPERM);
    EXPECT_TRUE(ack.message.empty());
    const KernelError e = error_from_ack(ack, nlmsg_hdr(req.get()), "connect");
    EXPECT_STREQ(e.what(), "connect: Operation not permitted");
    EXPECT_EQ(errno_name(e.errnum()), "EPERM");
}

TEST(Extack, SuccessAckHasNoError)
{
    auto req = connect_request();
    auto reply = kernel_error(req.get(), 0, {});
    EXPECT_EQ(parse_ack(nlmsg_hdr(reply.get())).error, 0);
}

TEST(Extack, DumpErrorInDoneMessage)
{
    NlMsgPtr done(nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI | NLM_F_ACK_TLVS));
    int error = -EINTR;
    ASSERT_EQ(nlmsg_append(done.get(), &error, sizeof(error), NLMSG_ALIGNTO), 0);
    ASSERT_EQ(nla_put_string(done.get(), NLMSGERR_ATTR_MSG, "dump interrupted"), 0);
    const KernelAck ack = parse_ack(nlmsg_hdr(done.get()));
    EXPECT_EQ(ack.error, -EINTR);
    EXPECT_EQ(ack.message, "dump interrupted");
}

TEST(Extack, TruncatedErrorMessageIsIgnoredSafely)
{
    NlMsgPtr msg(nlmsg_alloc_simple(NLMSG_ERROR, NLM_F_ACK_TLVS));
    int error = -EIO;
    ASSERT_EQ(nlmsg_append(msg.get(), &error, sizeof(error), NLMSG_ALIGNTO), 0);  // < nlmsgerr
    const KernelAck ack = parse_ack(nlmsg_hdr(msg.get()));
    EXPECT_EQ(ack.error, 0);
    EXPECT_TRUE(ack.message.empty());
}

}  // namespace
}  // namespace rblk
