// Netlink extended acks (NETLINK_EXT_ACK). libnl 3.7 hands us the raw
// nlmsgerr but does not parse its TLVs; these functions do, with libnl's
// attribute parser, and map the kernel's "bad attribute" offset back into
// the request we sent to name the attribute.
#pragma once

#include "rblk/error.hpp"

#include <linux/netlink.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rblk {

struct KernelAck {
    int error = 0;  // 0 or a negative errno, as the kernel sent it
    std::string message;                       // NLMSGERR_ATTR_MSG
    std::optional<std::uint32_t> bad_offset;   // NLMSGERR_ATTR_OFFS
    std::optional<std::uint32_t> missing_type; // NLMSGERR_ATTR_MISS_TYPE
};

// hdr: an NLMSG_ERROR (ack or error) or an NLMSG_DONE that ends a dump.
KernelAck parse_ack(const nlmsghdr* hdr);

// The top-level attribute type of the generic netlink `request` whose bytes
// contain `offset` (counted from the start of the request's nlmsghdr).
std::optional<int> attr_at_offset(const nlmsghdr* request, std::uint32_t offset);

// True when the error may mean "no family with that id (any more)": genetlink
// answers ENOENT for an unknown family id, EOPNOTSUPP when the id now belongs
// to a family without that command - both without an extack message, which
// rblk's own refusals always carry. The caller re-resolves the family.
bool family_may_be_stale(const KernelAck& ack);

// The exception for a failed ack; request may be null (no attribute name then).
KernelError error_from_ack(const KernelAck& ack, const nlmsghdr* request, std::string_view context);

}  // namespace rblk
