#include "rblk/extack.hpp"

#include "rblk/attr_names.hpp"

#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include <cerrno>
#include <cstring>

namespace rblk {
namespace {

const char* payload(const nlmsghdr* hdr) { return reinterpret_cast<const char*>(hdr) + NLMSG_HDRLEN; }

std::size_t payload_len(const nlmsghdr* hdr)
{
    return hdr->nlmsg_len > NLMSG_HDRLEN ? hdr->nlmsg_len - NLMSG_HDRLEN : 0;
}

void parse_tlvs(const char* start, std::size_t len, KernelAck& ack)
{
    nlattr* tb[NLMSGERR_ATTR_MAX + 1] = {};
    auto* head = reinterpret_cast<nlattr*>(const_cast<char*>(start));
    if (nla_parse(tb, NLMSGERR_ATTR_MAX, head, static_cast<int>(len), nullptr) < 0)
        return;  // a garbled extack must not hide the errno itself
    if (nlattr* a = tb[NLMSGERR_ATTR_MSG]) {
        const char* s = static_cast<const char*>(nla_data(a));
        ack.message.assign(s, strnlen(s, static_cast<std::size_t>(nla_len(a))));
    }
    if (nlattr* a = tb[NLMSGERR_ATTR_OFFS]; a && nla_len(a) >= 4)
        ack.bad_offset = nla_get_u32(a);
    if (nlattr* a = tb[NLMSGERR_ATTR_MISS_TYPE]; a && nla_len(a) >= 4)
        ack.missing_type = nla_get_u32(a);
}

}  // namespace

KernelAck parse_ack(const nlmsghdr* hdr)
{
    KernelAck ack;
    const std::size_t len = payload_len(hdr);
    std::size_t tlv_start = 0;
    if (hdr->nlmsg_type == NLMSG_ERROR) {
        if (len < sizeof(nlmsgerr))
            return ack;
        nlmsgerr err;
        std::memcpy(&err, payload(hdr), sizeof(err));
        ack.error = err.error;
        // Unless capped, the kernel echoes the whole request before the TLVs.
        std::size_t echoed = 0;
        if (!(hdr->nlmsg_flags & NLM_F_CAPPED) && err.msg.nlmsg_len > NLMSG_HDRLEN)
            echoed = err.msg.nlmsg_len - NLMSG_HDRLEN;
        tlv_start = NLMSG_ALIGN(sizeof(nlmsgerr) + echoed);
    } else if (hdr->nlmsg_type == NLMSG_DONE) {
        if (len >= sizeof(int))
            std::memcpy(&ack.error, payload(hdr), sizeof(int));
        tlv_start = NLMSG_ALIGN(sizeof(int));
    } else {
        return ack;
    }
    if ((hdr->nlmsg_flags & NLM_F_ACK_TLVS) && tlv_start < len)
        parse_tlvs(payload(hdr) + tlv_start, len - tlv_start, ack);
    return ack;
}

std::optional<int> attr_at_offset(const nlmsghdr* request, std::uint32_t offset)
{
    const std::size_t first = NLMSG_HDRLEN + GENL_HDRLEN;
    if (request->nlmsg_len <= first || offset < first || offset >= request->nlmsg_len)
        return std::nullopt;
    auto* base = reinterpret_cast<char*>(const_cast<nlmsghdr*>(request));
    auto* head = reinterpret_cast<nlattr*>(base + first);
    nlattr* pos;
    int rem;
    nla_for_each_attr(pos, head, static_cast<int>(request->nlmsg_len - first), rem) {
        const auto begin = static_cast<std::uint32_t>(reinterpret_cast<char*>(pos) - base);
        if (offset >= begin && offset < begin + NLA_ALIGN(pos->nla_len))
            return nla_type(pos);
    }
    return std::nullopt;
}

bool family_may_be_stale(const KernelAck& ack)
{
    return (ack.error == -ENOENT || ack.error == -EOPNOTSUPP) && ack.message.empty();
}

KernelError error_from_ack(const KernelAck& ack, const nlmsghdr* request, std::string_view context)
{
    std::string attribute;
    bool missing = false;
    if (ack.bad_offset && request) {
        if (auto type = attr_at_offset(request, *ack.bad_offset))
            attribute = attr_name(*type);
    } else if (ack.missing_type) {
        attribute = attr_name(static_cast<int>(*ack.missing_type));
        missing = true;
    }
    return KernelError(-ack.error, ack.message, attribute, missing, context);
}

}  // namespace rblk
