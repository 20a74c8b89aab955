// Encoding and decoding of "rblk" netlink attributes (uapi/rblk.h). Pure
// functions over libnl messages: no socket, so tests build a message and
// parse it back without a kernel.
#pragma once

#include "rblk/connect_options.hpp"
#include "rblk/controller.hpp"

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <string>
#include <vector>

namespace rblk {

// Appends the RBLK_CMD_CONNECT attributes for (validated) opts to msg:
// always transport, traddr, trsvcid, subnqn; the rest only when set
// (RBLK_ATTR_DISCOVERY when opts.is_discovery()).
void put_connect_attrs(nl_msg* msg, const ConnectOptions& opts);

// The subsystem an RBLK_CMD_SET_IOPOLICY names: by one of its controllers
// (ctrl_name, "rblk0"), else by subnqn and hostnqn (empty: the subsystems
// of that NQN of every host NQN).
struct SubsystemRef {
    std::string ctrl_name;
    std::string subnqn;
    std::string hostnqn;
};

// The RBLK_CMD_SET_IOPOLICY attributes: CTRL_NAME, or SUBNQN [+ HOSTNQN];
// then IOPOLICY.
void put_set_iopolicy_attrs(nl_msg* msg, const SubsystemRef& ref, Iopolicy policy);

// A GET_CTRL/CONNECT/GET_STATS reply (a generic netlink message).
ControllerInfo parse_controller(nlmsghdr* hdr);
// One message of a GET_CTRL dump, folded into controllers: a message with
// RBLK_ATTR_NS_CONTINUED appends its namespaces to the last controller
// (EBADMSG when there is none or it has another CTRL_ID); any other is a
// controller of its own.
void merge_dump_message(std::vector<ControllerInfo>& controllers, nlmsghdr* hdr);
// A CONNECT or GET_CTRL doit reply that lists fewer namespaces than the
// controller has: the GET_CTRL dump of that controller has them all.
bool namespaces_incomplete(const ControllerInfo& c);
// An RBLK_CMD_EVENT message.
StateEvent parse_event(nlmsghdr* hdr);
// An RBLK_CMD_AEN message; EBADMSG without RBLK_ATTR_AEN_RESULT.
AenEvent parse_aen(nlmsghdr* hdr);
// An RBLK_CMD_RESV_NOTICE message; EBADMSG without RBLK_ATTR_NSID or
// RBLK_ATTR_RESV_NOTICE. A kind this library does not know is kept as
// sent (resv_notice_name() prints its number).
ResvNoticeEvent parse_resv_notice(nlmsghdr* hdr);

// RBLK_ATTR_NAMESPACES: repeated RBLK_NS_ATTR_ENTRY nests; pads are skipped.
std::vector<NamespaceInfo> parse_namespaces(nlattr* nest);
// RBLK_ATTR_STATS: u64 counters; unknown counters are ignored.
CtrlStats parse_stats(nlattr* nest);

}  // namespace rblk
