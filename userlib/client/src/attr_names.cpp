#include "rblk/attr_names.hpp"

#include "rblk/controller.hpp"

#include <uapi/rblk.h>

#include <array>
#include <string_view>

namespace rblk {
namespace {

// Indexed by the enum value; the static_asserts make a new uapi attribute
// without a name here a build error rather than an "attr#N" at run time.
constexpr std::array<std::string_view, RBLK_ATTR_MAX + 1> kAttrNames = {
    "unspec", "pad", "ctrl_id", "ctrl_name", "state", "transport", "traddr", "trsvcid",
    "subnqn", "hostnqn", "hostid", "nr_io_queues", "queue_size", "kato", "reconnect_delay",
    "ctrl_loss_tmo", "fast_io_fail_tmo", "duplicate_connect", "cntlid", "model", "serial",
    "firmware", "namespaces", "stats", "old_state", "state_since_ms", "next_reconnect_ms",
    "loss_deadline_ms", "host_traddr", "tos", "nr_write_queues", "nr_poll_queues", "discovery", "aen_result",
    "req_nr_io_queues", "req_nr_write_queues", "req_nr_poll_queues", "req_queue_size",
    "subsys_id", "multipath", "iopolicy", "anatt", "nsid", "disk", "resv_notice",
    "nr_namespaces", "ns_continued", "dhchap_secret", "dhchap_ctrl_secret", "with_secrets",
    "dhchap",
};
static_assert(kAttrNames[RBLK_ATTR_NR_POLL_QUEUES] == "nr_poll_queues");
static_assert(kAttrNames[RBLK_ATTR_AEN_RESULT] == "aen_result");
static_assert(kAttrNames[RBLK_ATTR_REQ_QUEUE_SIZE] == "req_queue_size");
static_assert(kAttrNames[RBLK_ATTR_ANATT] == "anatt");
static_assert(kAttrNames[RBLK_ATTR_RESV_NOTICE] == "resv_notice");
static_assert(kAttrNames[RBLK_ATTR_NS_CONTINUED] == "ns_continued");
static_assert(kAttrNames[RBLK_ATTR_DHCHAP_CTRL_SECRET] == "dhchap_ctrl_secret");
static_assert(kAttrNames[RBLK_ATTR_DHCHAP] == "dhchap");
static_assert(kAttrNames.back().size() > 0, "name every enum rblk_attr value");

constexpr std::array<std::string_view, RBLK_NS_ATTR_MAX + 1> kNsAttrNames = {
    "unspec", "pad", "entry", "nsid", "disk", "size_bytes", "lba_size",
    "path_disk", "ana_state", "anagrpid",
};
static_assert(kNsAttrNames[RBLK_NS_ATTR_LBA_SIZE] == "lba_size");
static_assert(kNsAttrNames[RBLK_NS_ATTR_ANAGRPID] == "anagrpid");
static_assert(kNsAttrNames.back().size() > 0, "name every enum rblk_ns_attr value");

std::string numbered(int type) { return "attr#" + std::to_string(type); }

template <std::size_t N>
std::string lookup(const std::array<std::string_view, N>& table, int type)
{
    if (type >= 0 && static_cast<std::size_t>(type) < N)
        return std::string(table[static_cast<std::size_t>(type)]);
    return numbered(type);
}

}  // namespace

std::string attr_name(int type) { return lookup(kAttrNames, type); }
std::string ns_attr_name(int type) { return lookup(kNsAttrNames, type); }
// The counters are named by their table (rblk/controller.hpp), which also
// decodes and prints them.
std::string stat_attr_name(int type)
{
    if (type == RBLK_STAT_ATTR_UNSPEC)
        return "unspec";
    if (type == RBLK_STAT_ATTR_PAD)
        return "pad";
    if (const CtrlStatField* f = ctrl_stat_field(type))
        return std::string(f->name);
    return numbered(type);
}

}  // namespace rblk
