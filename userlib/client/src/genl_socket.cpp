#include "rblk/genl_socket.hpp"

#include "rblk/error.hpp"
#include "rblk/extack.hpp"

#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>

#include <linux/netlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <exception>
#include <optional>

namespace rblk {
namespace {

[[noreturn]] void fail_local(std::string_view context, int nlerr)
{
    throw Error(EIO, std::string(context) + ": " + nl_geterror(nlerr));
}

NlCbPtr new_cb()
{
    NlCbPtr cb(nl_cb_alloc(NL_CB_CUSTOM));
    if (!cb)
        throw Error(ENOMEM, "cannot allocate a netlink callback set");
    return cb;
}

// State of one request while libnl dispatches its replies to the callbacks.
struct Transaction {
    const nlmsghdr* request;
    const ReplyHandler* on_reply;
    bool done = false;
    std::optional<KernelAck> failure;
    std::exception_ptr handler_error;
};

int on_valid(nl_msg* msg, void* arg)
{
    auto* t = static_cast<Transaction*>(arg);
    if (t->handler_error)
        return NL_SKIP;
    try {
        (*t->on_reply)(nlmsg_hdr(msg));
    } catch (...) {
        t->handler_error = std::current_exception();  // keep reading up to the ack
    }
    return NL_OK;
}

int on_finish(nl_msg* msg, void* arg)
{
    auto* t = static_cast<Transaction*>(arg);
    KernelAck ack = parse_ack(nlmsg_hdr(msg));  // a dump's error rides in NLMSG_DONE
    if (ack.error < 0)
        t->failure = std::move(ack);
    t->done = true;
    return NL_STOP;
}

int on_ack(nl_msg*, void* arg)
{
    static_cast<Transaction*>(arg)->done = true;
    return NL_STOP;
}

int on_error(sockaddr_nl*, nlmsgerr* err, void* arg)
{
    auto* t = static_cast<Transaction*>(arg);
    // libnl passes the payload; the header with its flags and length sits just before it.
    const auto* hdr = reinterpret_cast<const nlmsghdr*>(reinterpret_cast<char*>(err) - NLMSG_HDRLEN);
    t->failure = parse_ack(hdr);
    t->done = true;
    return NL_STOP;
}

struct Listener {
    const EventHandler* handler;
    bool running = true;
};

// Multicast messages carry the sender's sequence numbers, not ours.
int accept_any_seq(nl_msg*, void*) { return NL_OK; }

int on_event(nl_msg* msg, void* arg)
{
    auto* l = static_cast<Listener*>(arg);
    l->running = (*l->handler)(nlmsg_hdr(msg));
    return l->running ? NL_OK : NL_STOP;
}

}  // namespace

GenlSocket::GenlSocket(std::string family, std::uint8_t version)
    : sock_(nl_socket_alloc()), family_(std::move(family)), version_(version)
{
    if (!sock_)
        throw Error(ENOMEM, "cannot allocate a netlink socket");
    if (int rc = genl_connect(sock_.get()); rc < 0)
        fail_local("generic netlink connect", rc);
    // Ask for the kernel's error strings and the offending attribute's offset,
    // and no echo of our request in error replies (we keep it ourselves).
    const int one = 1;
    setsockopt(fd(), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
    setsockopt(fd(), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
    resolve();
}

void GenlSocket::resolve()
{
    const int id = genl_ctrl_resolve(sock_.get(), family_.c_str());
    if (id == -NLE_OBJ_NOTFOUND)
        throw ModuleNotLoaded();
    if (id < 0)
        fail_local("resolving generic netlink family " + family_, id);
    family_id_ = id;
}

NlMsgPtr GenlSocket::new_request(std::uint8_t cmd, int flags) const
{
    NlMsgPtr msg(nlmsg_alloc());
    if (!msg || !genlmsg_put(msg.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family_id_, 0, flags, cmd,
                             version_))
        throw Error(ENOMEM, "cannot allocate a netlink message");
    return msg;
}

struct GenlSocket::Outcome {
    std::optional<KernelAck> failure;
    std::exception_ptr handler_error;
};

GenlSocket::Outcome GenlSocket::exchange(nl_msg* msg, const ReplyHandler& on_reply,
                                         std::string_view context)
{
    if (int rc = nl_send_auto(sock_.get(), msg); rc < 0)
        fail_local(context, rc);
    Transaction t{nlmsg_hdr(msg), &on_reply, false, std::nullopt, nullptr};
    NlCbPtr cb = new_cb();
    nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, on_valid, &t);
    nl_cb_set(cb.get(), NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &t);
    nl_cb_set(cb.get(), NL_CB_ACK, NL_CB_CUSTOM, on_ack, &t);
    nl_cb_err(cb.get(), NL_CB_CUSTOM, on_error, &t);
    while (!t.done) {
        const int rc = nl_recvmsgs(sock_.get(), cb.get());
        if (rc < 0 && !t.failure)
            fail_local(context, rc);
    }
    return Outcome{std::move(t.failure), t.handler_error};
}

void GenlSocket::transact(nl_msg* msg, const ReplyHandler& on_reply, std::string_view context)
{
    Outcome out = exchange(msg, on_reply, context);
    if (out.failure && family_may_be_stale(*out.failure)) {
        // The module may have been reloaded: its family has a new id, and
        // the request never reached it, so sending it again is safe.
        const int old_id = family_id_;
        resolve();
        if (family_id_ != old_id) {
            nlmsghdr* hdr = nlmsg_hdr(msg);
            hdr->nlmsg_type = static_cast<std::uint16_t>(family_id_);
            hdr->nlmsg_seq = NL_AUTO_SEQ;  // a fresh one, as libnl expects
            out = exchange(msg, on_reply, context);
        }
    }
    if (out.failure)
        throw error_from_ack(*out.failure, nlmsg_hdr(msg), context);
    if (out.handler_error)
        std::rethrow_exception(out.handler_error);
}

void GenlSocket::join(const std::string& family, const std::string& group)
{
    // A socket of its own: this one may have events queued already.
    NlSockPtr resolver(nl_socket_alloc());
    if (!resolver)
        throw Error(ENOMEM, "cannot allocate a netlink socket");
    if (int rc = genl_connect(resolver.get()); rc < 0)
        fail_local("generic netlink connect", rc);
    const int grp = genl_ctrl_resolve_grp(resolver.get(), family.c_str(), group.c_str());
    if (grp == -NLE_OBJ_NOTFOUND && family == family_)
        throw ModuleNotLoaded();
    if (grp < 0)
        fail_local("resolving multicast group " + family + "/" + group, grp);
    join(static_cast<std::uint32_t>(grp));
}

void GenlSocket::join(std::uint32_t group_id)
{
    if (int rc = nl_socket_add_membership(sock_.get(), static_cast<int>(group_id)); rc < 0)
        fail_local("joining multicast group " + std::to_string(group_id), rc);
}

void GenlSocket::listen(const std::string& group, const EventHandler& on_event_msg)
{
    join(family_, group);
    receive(on_event_msg);
}

void GenlSocket::receive(const EventHandler& on_event_msg)
{
    Listener listener{&on_event_msg, true};
    NlCbPtr cb = new_cb();
    // nl_socket_disable_seq_check() only changes the socket's default
    // callbacks; a custom set needs its own pass-through check.
    nl_cb_set(cb.get(), NL_CB_SEQ_CHECK, NL_CB_CUSTOM, accept_any_seq, nullptr);
    nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, on_event, &listener);
    while (listener.running) {
        const int rc = nl_recvmsgs(sock_.get(), cb.get());
        if (rc < 0)
            fail_local("receiving events", rc);
    }
}

}  // namespace rblk
