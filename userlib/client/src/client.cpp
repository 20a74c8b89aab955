#include "rblk/client.hpp"

#include "rblk/attr_codec.hpp"
#include "rblk/error.hpp"

#include <uapi/rblk.h>

#include <linux/genetlink.h>

#include <cerrno>

namespace rblk {
namespace {

Client::AttrWriter by_name(const std::string& name)
{
    return [name](nl_msg* msg) {
        if (nla_put_string(msg, RBLK_ATTR_CTRL_NAME, name.c_str()) < 0)
            throw Error(EMSGSIZE, "controller name too long");
    };
}

const Client::AttrWriter kNoAttrs = [](nl_msg*) {};
const ReplyHandler kIgnoreReplies = [](nlmsghdr*) {};

}  // namespace

Client::Client() : sock_(RBLK_GENL_NAME, RBLK_GENL_VERSION) {}

void Client::request(std::uint8_t cmd, int flags, const AttrWriter& put_attrs,
                     const ReplyHandler& on_reply, std::string_view context)
{
    NlMsgPtr msg = sock_.new_request(cmd, flags);
    put_attrs(msg.get());
    sock_.transact(msg.get(), on_reply, context);
}

ControllerInfo Client::connect(const ConnectOptions& given)
{
    const ConnectOptions opts = resolve_traddr(given);
    opts.validate();
    std::optional<ControllerInfo> created;
    request(RBLK_CMD_CONNECT, 0, [&](nl_msg* msg) { put_connect_attrs(msg, opts); },
            [&](nlmsghdr* hdr) { created = parse_controller(hdr); }, "connect");
    if (!created)
        throw Error(EPROTO, "connect: the kernel acknowledged but sent no controller");
    if (namespaces_incomplete(*created)) {
        // The reply had no room for them all; the dump has. A controller
        // deleted in between keeps the first ones.
        try {
            created->namespaces = show(created->name).namespaces;
        } catch (const KernelError& e) {
            if (e.errnum() != ENODEV)
                throw;
        }
    }
    return *created;
}

void Client::disconnect(const std::string& name)
{
    request(RBLK_CMD_DISCONNECT, 0, by_name(name), kIgnoreReplies, "disconnect " + name);
}

std::vector<std::string> Client::disconnect_nqn(const std::string& nqn)
{
    std::vector<std::string> names;
    for (const ControllerInfo& c : list())
        if (c.subnqn == nqn)
            names.push_back(c.name);
    request(RBLK_CMD_DISCONNECT, 0,
            [&](nl_msg* msg) {
                if (nla_put_string(msg, RBLK_ATTR_SUBNQN, nqn.c_str()) < 0)
                    throw Error(EMSGSIZE, "subnqn too long");
            },
            kIgnoreReplies, "disconnect " + nqn);
    return names;
}

std::vector<std::string> Client::disconnect_all()
{
    std::vector<std::string> names;
    for (const ControllerInfo& c : list()) {
        try {
            disconnect(c.name);
            names.push_back(c.name);
        } catch (const KernelError& e) {
            if (e.errnum() != ENODEV)  // already gone: someone else deleted it
                throw;
        }
    }
    return names;
}

std::vector<ControllerInfo> Client::list()
{
    std::vector<ControllerInfo> out;
    request(RBLK_CMD_GET_CTRL, NLM_F_DUMP, kNoAttrs,
            [&](nlmsghdr* hdr) { merge_dump_message(out, hdr); }, "list");
    return out;
}

std::vector<ControllerInfo> Client::list_with_secrets()
{
    std::vector<ControllerInfo> out;
    request(RBLK_CMD_GET_CTRL, NLM_F_DUMP,
            [](nl_msg* msg) {
                if (nla_put_flag(msg, RBLK_ATTR_WITH_SECRETS) < 0)
                    throw Error(EMSGSIZE, "with_secrets does not fit");
            },
            [&](nlmsghdr* hdr) { merge_dump_message(out, hdr); }, "list with secrets");
    return out;
}

ControllerInfo Client::show(const std::string& name)
{
    // The dump of that one controller, not the doit: its reply lists only
    // the namespaces that fit in one message. A module from before the
    // filter dumps every controller; the name picks ours out.
    std::vector<ControllerInfo> dumped;
    request(RBLK_CMD_GET_CTRL, NLM_F_DUMP, by_name(name),
            [&](nlmsghdr* hdr) { merge_dump_message(dumped, hdr); }, "show " + name);
    for (ControllerInfo& c : dumped)
        if (c.name == name)
            return std::move(c);
    throw KernelError(ENODEV, "no controller with that name", "ctrl_name", false, "show " + name);
}

ControllerInfo Client::stats(const std::string& name)
{
    std::optional<ControllerInfo> found;
    request(RBLK_CMD_GET_STATS, 0, by_name(name),
            [&](nlmsghdr* hdr) { found = parse_controller(hdr); }, "stats " + name);
    if (!found || !found->stats)
        throw Error(EPROTO, "stats " + name + ": the kernel sent no counters");
    return *found;
}

void Client::set_iopolicy(const SubsystemRef& ref, Iopolicy policy)
{
    const std::string what = ref.ctrl_name.empty() ? ref.subnqn : ref.ctrl_name;
    request(RBLK_CMD_SET_IOPOLICY, 0,
            [&](nl_msg* msg) { put_set_iopolicy_attrs(msg, ref, policy); }, kIgnoreReplies,
            "set-iopolicy " + what);
}

void Client::subscribe(const std::function<bool(const StateEvent&)>& on_event)
{
    // A socket of its own: multicast traffic must not mix with request replies.
    GenlSocket events(RBLK_GENL_NAME, RBLK_GENL_VERSION);
    events.listen(RBLK_GENL_MCGRP_EVENTS, [&](nlmsghdr* hdr) {
        if (genlmsg_hdr(hdr)->cmd != RBLK_CMD_EVENT)
            return true;
        return on_event(parse_event(hdr));
    });
}

void Client::monitor(const std::function<bool(const StateEvent&)>& on_event,
                     const std::function<bool(const FamilyNotice&)>& on_module,
                     const std::function<bool(const AenEvent&)>& on_aen,
                     const std::function<bool(const ResvNoticeEvent&)>& on_resv)
{
    GenlSocket events(RBLK_GENL_NAME, RBLK_GENL_VERSION);
    // nlctrl's notices first: a reload from here on cannot go unseen.
    events.join("nlctrl", "notify");
    events.join(RBLK_GENL_NAME, RBLK_GENL_MCGRP_EVENTS);
    events.receive([&](nlmsghdr* hdr) {
        if (hdr->nlmsg_type == GENL_ID_CTRL) {
            const std::optional<FamilyNotice> n =
                parse_family_notice(hdr, RBLK_GENL_NAME, RBLK_GENL_MCGRP_EVENTS);
            if (!n)
                return true;  // another family, or a group notice
            // The old membership went with the old family; join the new group.
            if (n->registered && n->group)
                events.join(*n->group);
            else if (n->registered)
                events.join(RBLK_GENL_NAME, RBLK_GENL_MCGRP_EVENTS);
            return on_module(*n);
        }
        if (genlmsg_hdr(hdr)->cmd == RBLK_CMD_AEN)
            return on_aen ? on_aen(parse_aen(hdr)) : true;
        if (genlmsg_hdr(hdr)->cmd == RBLK_CMD_RESV_NOTICE)
            return on_resv ? on_resv(parse_resv_notice(hdr)) : true;
        if (genlmsg_hdr(hdr)->cmd != RBLK_CMD_EVENT)
            return true;
        return on_event(parse_event(hdr));
    });
}

}  // namespace rblk
