#include "rblk/attr_codec.hpp"

#include "rblk/error.hpp"

#include <netlink/genl/genl.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <iterator>

namespace rblk {
namespace {

[[noreturn]] void malformed(const char* what)
{
    throw Error(EBADMSG, std::string("malformed rblk reply (") + what + ")");
}

void check_put(int rc, int type)
{
    if (rc < 0)
        throw Error(EMSGSIZE, "cannot add netlink attribute " + std::to_string(type));
}

// libnl's policies check type widths and NUL-terminated strings for us.
const nla_policy* ctrl_policy()
{
    static const auto p = [] {
        std::array<nla_policy, RBLK_ATTR_MAX + 1> t{};
        for (int a : {RBLK_ATTR_CTRL_ID, RBLK_ATTR_NR_IO_QUEUES, RBLK_ATTR_QUEUE_SIZE,
                      RBLK_ATTR_KATO, RBLK_ATTR_RECONNECT_DELAY, RBLK_ATTR_CTRL_LOSS_TMO,
                      RBLK_ATTR_FAST_IO_FAIL_TMO, RBLK_ATTR_NR_WRITE_QUEUES,
                      RBLK_ATTR_NR_POLL_QUEUES, RBLK_ATTR_AEN_RESULT,
                      RBLK_ATTR_REQ_NR_IO_QUEUES, RBLK_ATTR_REQ_NR_WRITE_QUEUES,
                      RBLK_ATTR_REQ_NR_POLL_QUEUES, RBLK_ATTR_REQ_QUEUE_SIZE,
                      RBLK_ATTR_SUBSYS_ID, RBLK_ATTR_NR_NAMESPACES})
            t[a].type = NLA_U32;
        for (int a : {RBLK_ATTR_CTRL_NAME, RBLK_ATTR_TRANSPORT, RBLK_ATTR_TRADDR,
                      RBLK_ATTR_SUBNQN, RBLK_ATTR_HOSTNQN, RBLK_ATTR_MODEL, RBLK_ATTR_SERIAL,
                      RBLK_ATTR_FIRMWARE, RBLK_ATTR_HOST_TRADDR, RBLK_ATTR_DHCHAP_SECRET,
                      RBLK_ATTR_DHCHAP_CTRL_SECRET})
            t[a].type = NLA_STRING;
        for (int a : {RBLK_ATTR_STATE, RBLK_ATTR_OLD_STATE, RBLK_ATTR_TOS, RBLK_ATTR_IOPOLICY,
                      RBLK_ATTR_ANATT, RBLK_ATTR_DHCHAP})
            t[a].type = NLA_U8;
        for (int a : {RBLK_ATTR_TRSVCID, RBLK_ATTR_CNTLID})
            t[a].type = NLA_U16;
        for (int a : {RBLK_ATTR_STATE_SINCE_MS, RBLK_ATTR_NEXT_RECONNECT_MS,
                      RBLK_ATTR_LOSS_DEADLINE_MS})
            t[a].type = NLA_U64;
        for (int a : {RBLK_ATTR_NAMESPACES, RBLK_ATTR_STATS})
            t[a].type = NLA_NESTED;
        t[RBLK_ATTR_HOSTID].minlen = RBLK_HOSTID_LEN;
        t[RBLK_ATTR_DISCOVERY].type = NLA_FLAG;
        t[RBLK_ATTR_MULTIPATH].type = NLA_FLAG;
        t[RBLK_ATTR_NS_CONTINUED].type = NLA_FLAG;
        return t;
    }();
    return p.data();
}

std::string get_string(nlattr* a)
{
    if (!a)
        return {};
    const char* s = static_cast<const char*>(nla_data(a));
    return std::string(s, strnlen(s, static_cast<std::size_t>(nla_len(a))));
}

template <typename T, typename Get>
T get_or(nlattr* a, Get get, T fallback = {})
{
    return a ? static_cast<T>(get(a)) : fallback;
}

std::optional<std::uint64_t> get_opt_u64(nlattr* a)
{
    return a ? std::optional<std::uint64_t>(nla_get_u64(a)) : std::nullopt;
}

std::optional<std::uint32_t> get_opt_u32(nlattr* a)
{
    return a ? std::optional<std::uint32_t>(nla_get_u32(a)) : std::nullopt;
}

const nla_policy* ns_policy()
{
    static const auto p = [] {
        std::array<nla_policy, RBLK_NS_ATTR_MAX + 1> t{};
        t[RBLK_NS_ATTR_NSID].type = NLA_U32;
        t[RBLK_NS_ATTR_DISK].type = NLA_STRING;
        t[RBLK_NS_ATTR_SIZE_BYTES].type = NLA_U64;
        t[RBLK_NS_ATTR_LBA_SIZE].type = NLA_U32;
        t[RBLK_NS_ATTR_PATH_DISK].type = NLA_STRING;
        t[RBLK_NS_ATTR_ANA_STATE].type = NLA_U8;
        t[RBLK_NS_ATTR_ANAGRPID].type = NLA_U32;
        return t;
    }();
    return p.data();
}

void parse_genl(nlmsghdr* hdr, nlattr** tb)
{
    if (genlmsg_parse(hdr, 0, tb, RBLK_ATTR_MAX, const_cast<nla_policy*>(ctrl_policy())) < 0)
        malformed("attributes");
}

}  // namespace

void put_connect_attrs(nl_msg* msg, const ConnectOptions& o)
{
    check_put(nla_put_string(msg, RBLK_ATTR_TRANSPORT, o.transport.c_str()), RBLK_ATTR_TRANSPORT);
    check_put(nla_put_string(msg, RBLK_ATTR_TRADDR, o.traddr.c_str()), RBLK_ATTR_TRADDR);
    check_put(nla_put_u16(msg, RBLK_ATTR_TRSVCID, static_cast<std::uint16_t>(o.trsvcid)),
              RBLK_ATTR_TRSVCID);
    check_put(nla_put_string(msg, RBLK_ATTR_SUBNQN, o.subnqn.c_str()), RBLK_ATTR_SUBNQN);
    if (o.hostnqn)
        check_put(nla_put_string(msg, RBLK_ATTR_HOSTNQN, o.hostnqn->c_str()), RBLK_ATTR_HOSTNQN);
    if (o.hostid) {
        const auto uuid = parse_uuid(*o.hostid);
        if (!uuid)
            throw InvalidOption("hostid '" + *o.hostid + "' is not a UUID");
        check_put(nla_put(msg, RBLK_ATTR_HOSTID, RBLK_HOSTID_LEN, uuid->data()),
                  RBLK_ATTR_HOSTID);
    }
    const std::pair<int, const std::optional<std::int64_t>*> u32s[] = {
        {RBLK_ATTR_NR_IO_QUEUES, &o.nr_io_queues},
        {RBLK_ATTR_NR_WRITE_QUEUES, &o.nr_write_queues},
        {RBLK_ATTR_NR_POLL_QUEUES, &o.nr_poll_queues},
        {RBLK_ATTR_QUEUE_SIZE, &o.queue_size},
        {RBLK_ATTR_KATO, &o.kato},
        {RBLK_ATTR_RECONNECT_DELAY, &o.reconnect_delay},
    };
    for (const auto& [type, value] : u32s)
        if (*value)
            check_put(nla_put_u32(msg, type, static_cast<std::uint32_t>(**value)), type);
    const std::pair<int, const std::optional<std::int64_t>*> s32s[] = {
        {RBLK_ATTR_CTRL_LOSS_TMO, &o.ctrl_loss_tmo},
        {RBLK_ATTR_FAST_IO_FAIL_TMO, &o.fast_io_fail_tmo},
    };
    for (const auto& [type, value] : s32s)
        if (*value)
            check_put(nla_put_s32(msg, type, static_cast<std::int32_t>(**value)), type);
    if (o.duplicate_connect)
        check_put(nla_put_flag(msg, RBLK_ATTR_DUPLICATE_CONNECT), RBLK_ATTR_DUPLICATE_CONNECT);
    if (o.is_discovery())
        check_put(nla_put_flag(msg, RBLK_ATTR_DISCOVERY), RBLK_ATTR_DISCOVERY);
    if (o.host_traddr)
        check_put(nla_put_string(msg, RBLK_ATTR_HOST_TRADDR, o.host_traddr->c_str()),
                  RBLK_ATTR_HOST_TRADDR);
    // -1 is the default: sent as nothing, as nvme-cli does.
    if (o.tos && *o.tos >= 0)
        check_put(nla_put_u8(msg, RBLK_ATTR_TOS, static_cast<std::uint8_t>(*o.tos)), RBLK_ATTR_TOS);
    for (const auto& [type, value] : {std::pair{RBLK_ATTR_DHCHAP_SECRET, &o.dhchap_secret},
                                      {RBLK_ATTR_DHCHAP_CTRL_SECRET, &o.dhchap_ctrl_secret}})
        if (*value)
            check_put(nla_put_string(msg, type, (*value)->c_str()), type);
}

void put_set_iopolicy_attrs(nl_msg* msg, const SubsystemRef& ref, Iopolicy policy)
{
    const auto put_string = [msg](int type, const std::string& value) {
        check_put(nla_put_string(msg, type, value.c_str()), type);
    };
    if (!ref.ctrl_name.empty()) {
        put_string(RBLK_ATTR_CTRL_NAME, ref.ctrl_name);
    } else {
        put_string(RBLK_ATTR_SUBNQN, ref.subnqn);
        if (!ref.hostnqn.empty())
            put_string(RBLK_ATTR_HOSTNQN, ref.hostnqn);
    }
    check_put(nla_put_u8(msg, RBLK_ATTR_IOPOLICY, static_cast<std::uint8_t>(policy)),
              RBLK_ATTR_IOPOLICY);
}

std::vector<NamespaceInfo> parse_namespaces(nlattr* nest)
{
    std::vector<NamespaceInfo> out;
    nlattr* entry;
    int rem;
    nla_for_each_nested(entry, nest, rem) {
        if (nla_type(entry) != RBLK_NS_ATTR_ENTRY)
            continue;
        nlattr* tb[RBLK_NS_ATTR_MAX + 1];
        if (nla_parse_nested(tb, RBLK_NS_ATTR_MAX, entry, const_cast<nla_policy*>(ns_policy())) < 0)
            malformed("namespace entry");
        NamespaceInfo ns;
        ns.nsid = get_or<std::uint32_t>(tb[RBLK_NS_ATTR_NSID], nla_get_u32);
        ns.disk = get_string(tb[RBLK_NS_ATTR_DISK]);
        ns.size_bytes = get_or<std::uint64_t>(tb[RBLK_NS_ATTR_SIZE_BYTES], nla_get_u64);
        ns.lba_size = get_or<std::uint32_t>(tb[RBLK_NS_ATTR_LBA_SIZE], nla_get_u32);
        ns.path_disk = get_string(tb[RBLK_NS_ATTR_PATH_DISK]);
        if (nlattr* a = tb[RBLK_NS_ATTR_ANA_STATE])
            ns.ana_state = static_cast<AnaState>(nla_get_u8(a));
        ns.anagrpid = get_opt_u32(tb[RBLK_NS_ATTR_ANAGRPID]);
        out.push_back(std::move(ns));
    }
    return out;
}

CtrlStats parse_stats(nlattr* nest)
{
    CtrlStats s;
    nlattr* a;
    int rem;
    nla_for_each_nested(a, nest, rem) {
        // Pads and a newer kernel's counters have no row: skipped.
        const CtrlStatField* f = ctrl_stat_field(nla_type(a));
        if (!f)
            continue;
        if (nla_len(a) < static_cast<int>(sizeof(std::uint64_t)))
            malformed("counter");
        s.*f->field = nla_get_u64(a);
    }
    return s;
}

ControllerInfo parse_controller(nlmsghdr* hdr)
{
    nlattr* tb[RBLK_ATTR_MAX + 1];
    parse_genl(hdr, tb);

    ControllerInfo c;
    c.id = get_or<std::uint32_t>(tb[RBLK_ATTR_CTRL_ID], nla_get_u32);
    c.name = get_string(tb[RBLK_ATTR_CTRL_NAME]);
    c.state = get_or<CtrlState>(tb[RBLK_ATTR_STATE], nla_get_u8);
    c.transport = get_string(tb[RBLK_ATTR_TRANSPORT]);
    c.traddr = get_string(tb[RBLK_ATTR_TRADDR]);
    c.trsvcid = get_or<std::uint16_t>(tb[RBLK_ATTR_TRSVCID], nla_get_u16);
    c.subnqn = get_string(tb[RBLK_ATTR_SUBNQN]);
    c.hostnqn = get_string(tb[RBLK_ATTR_HOSTNQN]);
    if (nlattr* a = tb[RBLK_ATTR_HOSTID]) {
        std::array<std::uint8_t, RBLK_HOSTID_LEN> uuid;
        std::memcpy(uuid.data(), nla_data(a), uuid.size());
        c.hostid = format_uuid(uuid);
    }
    c.nr_io_queues = get_or<std::uint32_t>(tb[RBLK_ATTR_NR_IO_QUEUES], nla_get_u32);
    // Absent (none granted, or a module from before them): 0.
    c.nr_write_queues = get_or<std::uint32_t>(tb[RBLK_ATTR_NR_WRITE_QUEUES], nla_get_u32);
    c.nr_poll_queues = get_or<std::uint32_t>(tb[RBLK_ATTR_NR_POLL_QUEUES], nla_get_u32);
    c.queue_size = get_or<std::uint32_t>(tb[RBLK_ATTR_QUEUE_SIZE], nla_get_u32);
    // Absent from a module before them: unset, and save falls back to the grant.
    c.requested.nr_io_queues = get_opt_u32(tb[RBLK_ATTR_REQ_NR_IO_QUEUES]);
    c.requested.nr_write_queues = get_opt_u32(tb[RBLK_ATTR_REQ_NR_WRITE_QUEUES]);
    c.requested.nr_poll_queues = get_opt_u32(tb[RBLK_ATTR_REQ_NR_POLL_QUEUES]);
    c.requested.queue_size = get_opt_u32(tb[RBLK_ATTR_REQ_QUEUE_SIZE]);
    c.kato = get_or<std::uint32_t>(tb[RBLK_ATTR_KATO], nla_get_u32);
    c.reconnect_delay = get_or<std::uint32_t>(tb[RBLK_ATTR_RECONNECT_DELAY], nla_get_u32);
    c.ctrl_loss_tmo = get_or<std::int32_t>(tb[RBLK_ATTR_CTRL_LOSS_TMO], nla_get_s32);
    c.fast_io_fail_tmo = get_or<std::int32_t>(tb[RBLK_ATTR_FAST_IO_FAIL_TMO], nla_get_s32);
    c.cntlid = get_or<std::uint16_t>(tb[RBLK_ATTR_CNTLID], nla_get_u16);
    c.model = get_string(tb[RBLK_ATTR_MODEL]);
    c.serial = get_string(tb[RBLK_ATTR_SERIAL]);
    c.firmware = get_string(tb[RBLK_ATTR_FIRMWARE]);
    c.host_traddr = get_string(tb[RBLK_ATTR_HOST_TRADDR]);
    c.tos = get_or<std::int32_t>(tb[RBLK_ATTR_TOS], nla_get_u8, -1);
    c.state_since_ms = get_opt_u64(tb[RBLK_ATTR_STATE_SINCE_MS]);
    c.next_reconnect_ms = get_opt_u64(tb[RBLK_ATTR_NEXT_RECONNECT_MS]);
    c.loss_deadline_ms = get_opt_u64(tb[RBLK_ATTR_LOSS_DEADLINE_MS]);
    c.discovery = tb[RBLK_ATTR_DISCOVERY] != nullptr;
    c.subsys_id = get_opt_u32(tb[RBLK_ATTR_SUBSYS_ID]);
    c.multipath = tb[RBLK_ATTR_MULTIPATH] != nullptr;
    if (nlattr* a = tb[RBLK_ATTR_IOPOLICY])
        c.iopolicy = static_cast<Iopolicy>(nla_get_u8(a));
    c.anatt = get_or<std::uint8_t>(tb[RBLK_ATTR_ANATT], nla_get_u8);
    c.dhchap = get_or<Dhchap>(tb[RBLK_ATTR_DHCHAP], nla_get_u8);
    if (tb[RBLK_ATTR_DHCHAP_SECRET])
        c.dhchap_secret = get_string(tb[RBLK_ATTR_DHCHAP_SECRET]);
    if (tb[RBLK_ATTR_DHCHAP_CTRL_SECRET])
        c.dhchap_ctrl_secret = get_string(tb[RBLK_ATTR_DHCHAP_CTRL_SECRET]);
    if (tb[RBLK_ATTR_NAMESPACES])
        c.namespaces = parse_namespaces(tb[RBLK_ATTR_NAMESPACES]);
    c.nr_namespaces = get_opt_u32(tb[RBLK_ATTR_NR_NAMESPACES]);
    if (tb[RBLK_ATTR_STATS])
        c.stats = parse_stats(tb[RBLK_ATTR_STATS]);
    return c;
}

void merge_dump_message(std::vector<ControllerInfo>& controllers, nlmsghdr* hdr)
{
    nlattr* tb[RBLK_ATTR_MAX + 1];
    parse_genl(hdr, tb);
    if (!tb[RBLK_ATTR_NS_CONTINUED]) {
        controllers.push_back(parse_controller(hdr));
        return;
    }
    if (controllers.empty() || !tb[RBLK_ATTR_CTRL_ID] ||
        get_or<std::uint32_t>(tb[RBLK_ATTR_CTRL_ID], nla_get_u32) != controllers.back().id)
        malformed("namespaces continued from no controller before them");
    if (!tb[RBLK_ATTR_NAMESPACES])
        return;
    std::vector<NamespaceInfo> more = parse_namespaces(tb[RBLK_ATTR_NAMESPACES]);
    std::vector<NamespaceInfo>& ns = controllers.back().namespaces;
    ns.insert(ns.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

bool namespaces_incomplete(const ControllerInfo& c)
{
    return c.nr_namespaces && c.namespaces.size() < *c.nr_namespaces;
}

StateEvent parse_event(nlmsghdr* hdr)
{
    nlattr* tb[RBLK_ATTR_MAX + 1];
    parse_genl(hdr, tb);
    StateEvent e;
    e.id = get_or<std::uint32_t>(tb[RBLK_ATTR_CTRL_ID], nla_get_u32);
    e.name = get_string(tb[RBLK_ATTR_CTRL_NAME]);
    e.state = get_or<CtrlState>(tb[RBLK_ATTR_STATE], nla_get_u8);
    e.old_state = get_or<CtrlState>(tb[RBLK_ATTR_OLD_STATE], nla_get_u8);
    return e;
}

AenEvent parse_aen(nlmsghdr* hdr)
{
    nlattr* tb[RBLK_ATTR_MAX + 1];
    parse_genl(hdr, tb);
    if (!tb[RBLK_ATTR_AEN_RESULT])
        malformed("AEN without a result");
    AenEvent e;
    e.id = get_or<std::uint32_t>(tb[RBLK_ATTR_CTRL_ID], nla_get_u32);
    e.name = get_string(tb[RBLK_ATTR_CTRL_NAME]);
    e.result = nla_get_u32(tb[RBLK_ATTR_AEN_RESULT]);
    e.discovery = tb[RBLK_ATTR_DISCOVERY] != nullptr;
    return e;
}

ResvNoticeEvent parse_resv_notice(nlmsghdr* hdr)
{
    nlattr* tb[RBLK_ATTR_MAX + 1];
    parse_genl(hdr, tb);
    if (!tb[RBLK_ATTR_NSID] || !tb[RBLK_ATTR_RESV_NOTICE])
        malformed("reservation notice without a namespace or a kind");
    ResvNoticeEvent e;
    e.id = get_or<std::uint32_t>(tb[RBLK_ATTR_CTRL_ID], nla_get_u32);
    e.name = get_string(tb[RBLK_ATTR_CTRL_NAME]);
    e.nsid = nla_get_u32(tb[RBLK_ATTR_NSID]);
    e.disk = get_string(tb[RBLK_ATTR_DISK]);
    e.notice = static_cast<ResvNotice>(nla_get_u8(tb[RBLK_ATTR_RESV_NOTICE]));
    return e;
}

}  // namespace rblk
