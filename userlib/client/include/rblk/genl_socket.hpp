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
    // extack message and the name of the attribute it pointed at. When the
    // family id went stale (the module was reloaded: family_may_be_stale),
    // resolves the family again and, if its id changed, sends msg once more;
    // if the family is gone, throws ModuleNotLoaded.
    void transact(nl_msg* msg, const ReplyHandler& on_reply, std::string_view context);

    // Joins multicast group `group` of the family, then delivers its messages
    // to on_event until it returns false.
    void listen(const std::string& group, const EventHandler& on_event);

    // Joins multicast group `group` of `family` (any family, e.g. nlctrl's
    // "notify"), resolved on a socket of its own so that events already
    // queued here are left alone. Throws ModuleNotLoaded when `family` is
    // this socket's family and it is not registered.
    void join(const std::string& family, const std::string& group);
    // Joins a multicast group by id (e.g. one an nlctrl notice announced).
    void join(std::uint32_t group_id);
    // Delivers every multicast message (of any joined group) to on_event
    // until it returns false.
    void receive(const EventHandler& on_event);

    int family_id() const noexcept { return family_id_; }
    int fd() const noexcept { return nl_socket_get_fd(sock_.get()); }

private:
    // Looks the family up (again); throws ModuleNotLoaded when it is absent.
    void resolve();
    // One send and the replies up to the ack; failures are returned in t.
    struct Outcome;
    Outcome exchange(nl_msg* msg, const ReplyHandler& on_reply, std::string_view context);

    NlSockPtr sock_;
    std::string family_;
    std::uint8_t version_;
    int family_id_ = 0;
};

}  // namespace rblk
