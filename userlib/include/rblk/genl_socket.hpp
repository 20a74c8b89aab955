// RAII generic netlink socket for one family, on libnl-genl-3: request/reply
// transactions with extended acks turned into rblk::Error, and multicast
// reception for event groups.
#pragma once

#include <netlink/genl/genl.h>
#include <netlink/handlers.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace rblk {

struct NlSockFree { void operator()(nl_sock* s) const { nl_socket_free(s); } };
struct NlMsgFree { void operator()(nl_msg* m) const { nlmsg_free(m); } };
struct NlCbPut { void operator()(nl_cb* c) const { nl_cb_put(c); } };
using NlSockPtr = std::unique_ptr<nl_sock, NlSockFree>;
using NlMsgPtr = std::unique_ptr<nl_msg, NlMsgFree>;
using NlCbPtr = std::unique_ptr<nl_cb, NlCbPut>;

// Called for every reply message of a transaction; may throw (rethrown after the ack).
using ReplyHandler = std::function<void(nlmsghdr*)>;
// Called for every multicast message; return false to stop receiving.
using EventHandler = std::function<bool(nlmsghdr*)>;

class GenlSocket {
public:
    // Connects and resolves `family`. Throws ModuleNotLoaded when the family
    // is not registered (the only family this library speaks is "rblk").
    explicit GenlSocket(std::string family, std::uint8_t version);

    // A request with the generic netlink header filled in.
    NlMsgPtr new_request(std::uint8_t cmd, int flags = 0) const;

    // Sends `msg`, hands each reply to on_reply, returns on the kernel's ack
    // (or NLMSG_DONE for dumps). Kernel errors throw Error with errno, the
    // extack message and the name of the attribute it pointed at.
    void transact(nl_msg* msg, const ReplyHandler& on_reply, std::string_view context);

    // Joins multicast group `group` of the family, then delivers its messages
    // to on_event until it returns false.
    void listen(const std::string& group, const EventHandler& on_event);

    int family_id() const noexcept { return family_id_; }
    int fd() const noexcept { return nl_socket_get_fd(sock_.get()); }

private:
    NlSockPtr sock_;
    std::string family_;
    std::uint8_t version_;
    int family_id_ = 0;
};

}  // namespace rblk
