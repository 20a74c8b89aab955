// What the kernel reports about controllers, namespaces, counters and state
// changes, decoded from the "rblk" netlink messages (see attr_codec.hpp).
#pragma once

#include <uapi/rblk.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rblk {

// Values of enum rblk_ctrl_state; a newer kernel may send values beyond Dead.
enum class CtrlState : std::uint8_t {
    New = RBLK_CTRL_NEW,
    Connecting = RBLK_CTRL_CONNECTING,
    Live = RBLK_CTRL_LIVE,
    Resetting = RBLK_CTRL_RESETTING,
    Deleting = RBLK_CTRL_DELETING,
    Dead = RBLK_CTRL_DEAD,
};

// "new", "connecting", "live", "resetting", "deleting", "dead"; "unknown(N)" otherwise.
std::string state_name(CtrlState state);

// Values of enum rblk_ana_state (the NVMe ANA log's).
enum class AnaState : std::uint8_t {
    Optimized = RBLK_ANA_OPTIMIZED,
    NonOptimized = RBLK_ANA_NONOPTIMIZED,
    Inaccessible = RBLK_ANA_INACCESSIBLE,
    PersistentLoss = RBLK_ANA_PERSISTENT_LOSS,
    Change = RBLK_ANA_CHANGE,
};

// As nvme's sysfs spells them: "optimized", "non-optimized", "inaccessible",
// "persistent-loss", "change"; "unknown(N)" otherwise.
std::string ana_state_name(AnaState state);

// Values of enum rblk_resv_notice (the Reservation Notification log's types).
enum class ResvNotice : std::uint8_t {
    RegistrationPreempted = RBLK_RESV_NOTICE_REG_PREEMPTED,
    ReservationReleased = RBLK_RESV_NOTICE_RELEASED,
    ReservationPreempted = RBLK_RESV_NOTICE_PREEMPTED,
};

// As the uevent's RBLK_RESV spells them: "registration-preempted",
// "reservation-released", "reservation-preempted"; "unknown(N)" otherwise.
std::string resv_notice_name(ResvNotice notice);

// Values of enum rblk_iopolicy.
enum class Iopolicy : std::uint8_t {
    Numa = RBLK_IOPOLICY_NUMA,
    RoundRobin = RBLK_IOPOLICY_ROUND_ROBIN,
    QueueDepth = RBLK_IOPOLICY_QUEUE_DEPTH,
};

// "numa", "round-robin", "queue-depth" (sysfs's and set-iopolicy's
// spelling); "unknown(N)" otherwise.
std::string iopolicy_name(Iopolicy policy);
// The policy spelled as iopolicy_name() spells it; nullopt for anything else.
std::optional<Iopolicy> parse_iopolicy(std::string_view name);
// Every name parse_iopolicy() takes, in enum order.
std::vector<std::string> iopolicy_names();

struct NamespaceInfo {
    std::uint32_t nsid = 0;
    std::string disk;  // "rblk0n1": with multipath, the head (the device to open)
    std::uint64_t size_bytes = 0;
    std::uint32_t lba_size = 0;
    // Multipath: this controller's hidden path disk below the head,
    // "rblk0c1n1"; empty without multipath.
    // (Default member initializers: code from before these fields still
    // initialises a namespace as {nsid, disk, size_bytes, lba_size}.)
    std::string path_disk{};
    // As the path's controller last reported them; unset without ANA.
    std::optional<AnaState> ana_state{};
    std::optional<std::uint32_t> anagrpid{};

    std::string device() const { return "/dev/" + disk; }
};

// The counters of RBLK_ATTR_STATS, one field each, as kCtrlStatFields lists them.
struct CtrlStats {
    std::uint64_t reads = 0;
    std::uint64_t writes = 0;
    std::uint64_t read_bytes = 0;
    std::uint64_t write_bytes = 0;
    std::uint64_t errors = 0;
    std::uint64_t reconnects = 0;
    std::uint64_t inflight = 0;
    std::uint64_t failovers = 0;

    bool operator==(const CtrlStats&) const = default;
};

// One row per counter, as kmod/stats.c has one per kernel counter: its
// attribute in RBLK_ATTR_STATS, its name (the kernel's sysfs file, the JSON
// key, the `rblkctl stats` label, stat_attr_name()) and where it lands.
// Decoding, naming, JSON and text output all walk this table, so a new
// counter in userlib is its field above and its row here; the asserts
// below make forgetting either one a build error.
struct CtrlStatField {
    int attr;  // enum rblk_stat_attr
    std::string_view name;
    std::uint64_t CtrlStats::*field;
};

inline constexpr std::array kCtrlStatFields = {
    CtrlStatField{RBLK_STAT_ATTR_READS, "reads", &CtrlStats::reads},
    CtrlStatField{RBLK_STAT_ATTR_WRITES, "writes", &CtrlStats::writes},
    CtrlStatField{RBLK_STAT_ATTR_READ_BYTES, "read_bytes", &CtrlStats::read_bytes},
    CtrlStatField{RBLK_STAT_ATTR_WRITE_BYTES, "write_bytes", &CtrlStats::write_bytes},
    CtrlStatField{RBLK_STAT_ATTR_ERRORS, "errors", &CtrlStats::errors},
    CtrlStatField{RBLK_STAT_ATTR_RECONNECTS, "reconnects", &CtrlStats::reconnects},
    CtrlStatField{RBLK_STAT_ATTR_INFLIGHT, "inflight", &CtrlStats::inflight},
    CtrlStatField{RBLK_STAT_ATTR_FAILOVERS, "failovers", &CtrlStats::failovers},
};

// The row of counter attribute `attr`; nullptr for UNSPEC, PAD and
// counters of a newer kernel.
constexpr const CtrlStatField* ctrl_stat_field(int attr)
{
    for (const CtrlStatField& f : kCtrlStatFields)
        if (f.attr == attr)
            return &f;
    return nullptr;
}

static_assert(sizeof(CtrlStats) == kCtrlStatFields.size() * sizeof(std::uint64_t),
              "every CtrlStats field needs its row in kCtrlStatFields");

constexpr bool every_stat_attr_has_a_row()
{
    for (int a = RBLK_STAT_ATTR_PAD + 1; a <= RBLK_STAT_ATTR_MAX; ++a)
        if (!ctrl_stat_field(a))
            return false;
    return kCtrlStatFields.size() == RBLK_STAT_ATTR_MAX - RBLK_STAT_ATTR_PAD;
}
static_assert(every_stat_attr_has_a_row(),
              "every counter of enum rblk_stat_attr needs exactly one row in kCtrlStatFields");

// What connect asked for (RBLK_ATTR_REQ_*), as opposed to what the target
// granted; unset when the module does not report it.
struct QueueRequest {
    std::optional<std::uint32_t> nr_io_queues;  // the CPU count when connect named none
    std::optional<std::uint32_t> nr_write_queues;
    std::optional<std::uint32_t> nr_poll_queues;
    std::optional<std::uint32_t> queue_size;

    bool operator==(const QueueRequest&) const = default;
};

// enum rblk_dhchap: the host's secret alone, or the controller's too.
enum class Dhchap : std::uint8_t {
    None = RBLK_DHCHAP_NONE,
    Host = RBLK_DHCHAP_HOST,
    Bidirectional = RBLK_DHCHAP_BIDIRECTIONAL,
};
// "none", "host", "bidirectional"
std::string dhchap_name(Dhchap d);

struct ControllerInfo {
    std::uint32_t id = 0;
    std::string name;  // "rblk0"
    CtrlState state = CtrlState::New;
    std::string transport;
    std::string traddr;
    std::uint16_t trsvcid = 0;
    std::string subnqn;
    std::string hostnqn;
    std::string hostid;  // UUID text, empty when not reported
    std::uint32_t nr_io_queues = 0;     // with write queues: the read queues
    std::uint32_t nr_write_queues = 0;  // 0: none (or a module without them)
    std::uint32_t nr_poll_queues = 0;
    std::uint32_t queue_size = 0;
    QueueRequest requested;  // what the granted counts above were asked as
    std::uint32_t kato = 0;
    std::uint32_t reconnect_delay = 0;
    std::int32_t ctrl_loss_tmo = 0;
    std::int32_t fast_io_fail_tmo = 0;
    std::uint16_t cntlid = 0;
    std::string model;
    std::string serial;
    std::string firmware;
    std::string host_traddr;  // empty: the stack picks the source address
    std::int32_t tos = -1;    // -1: the transport's default
    std::optional<std::uint64_t> state_since_ms;
    std::optional<std::uint64_t> next_reconnect_ms;
    std::optional<std::uint64_t> loss_deadline_ms;
    bool discovery = false;  // RBLK_ATTR_DISCOVERY: admin queue only, no namespaces
    // The subsystem this controller is a path of (RBLK_ATTR_SUBSYS_ID;
    // unset for a discovery controller, which is in none, and from a module
    // before multipath) and what it shares with the other paths: head disks
    // (multipath) and their I/O policy.
    std::optional<std::uint32_t> subsys_id;
    bool multipath = false;
    std::optional<Iopolicy> iopolicy;
    std::uint8_t anatt = 0;  // ANA transition time, seconds; 0: no ANA
    // DH-HMAC-CHAP (RBLK_ATTR_DHCHAP): which secrets it was given, not
    // whether the target asked. Their values come only from
    // Client::list_with_secrets() (root's, for save) and are never printed.
    Dhchap dhchap = Dhchap::None;
    std::optional<std::string> dhchap_secret;
    std::optional<std::string> dhchap_ctrl_secret;
    std::vector<NamespaceInfo> namespaces;
    // How many namespaces the controller had (RBLK_ATTR_NR_NAMESPACES):
    // a CONNECT or GET_CTRL doit reply lists fewer when they do not fit
    // in one message. Unset from a module before it, whose lists are whole.
    std::optional<std::uint32_t> nr_namespaces;
    std::optional<CtrlStats> stats;  // only in GET_STATS replies
};

// Where controller c sorts among subsystems: its SUBSYS_ID, or its own id
// when it is in none.
inline std::uint32_t subsys_of(const ControllerInfo& c) { return c.subsys_id.value_or(c.id); }
// "rblk-subsys0", as /sys/class/rblk-subsystem names it.
std::string subsys_name(std::uint32_t subsys_id);
// The controllers ordered as list shows them: by subsys_of(), then by id.
std::vector<ControllerInfo> by_subsystem(std::vector<ControllerInfo> controllers);

// A subsystem as its controllers (paths) report it: the controllers of one
// SUBSYS_ID, ordered by id.
struct SubsystemInfo {
    std::uint32_t id = 0;
    std::string subnqn;
    std::string hostnqn;
    bool multipath = false;
    std::optional<Iopolicy> iopolicy;
    std::vector<ControllerInfo> paths;
};

// The controllers grouped by subsystem, ordered by subsystem id; those in
// none (no SUBSYS_ID) are left out.
std::vector<SubsystemInfo> group_subsystems(const std::vector<ControllerInfo>& controllers);
// The ANA state of a path as one word: its namespaces' common state,
// or their states in namespace order, comma-separated, when they differ;
// "-" where one is not reported; empty when no namespace reports one.
std::string path_ana_summary(const ControllerInfo& c);

// RBLK_CMD_EVENT on the "events" multicast group.
struct StateEvent {
    std::uint32_t id = 0;
    std::string name;
    CtrlState state = CtrlState::New;
    CtrlState old_state = CtrlState::New;
};

// RBLK_CMD_AEN on the "events" multicast group: an asynchronous event of a
// controller that userspace acts on (completion dword 0 of the AER).
struct AenEvent {
    std::uint32_t id = 0;
    std::string name;
    std::uint32_t result = 0;
    bool discovery = false;  // the controller is a discovery controller
};

// RBLK_CMD_RESV_NOTICE on the "events" multicast group: a reservation
// notice the controller's Reservation Notification log held for this host.
struct ResvNoticeEvent {
    std::uint32_t id = 0;
    std::string name;
    std::uint32_t nsid = 0;
    std::string disk;  // the device to open ("rblk0n1"; a head's with multipath)
    ResvNotice notice = ResvNotice::RegistrationPreempted;
};

// The AER result fields (NVMe base spec, Asynchronous Event Request
// completion dword 0): type bits 2:0, info bits 15:8, log page bits 23:16.
constexpr std::uint32_t aen_type(std::uint32_t result) { return result & 0x7; }
constexpr std::uint32_t aen_info(std::uint32_t result) { return (result >> 8) & 0xff; }
constexpr std::uint32_t aen_log_page(std::uint32_t result) { return (result >> 16) & 0xff; }
// A Discovery Log Page Change notice: type 2 (notice), info 0xf0, log 0x70.
constexpr bool is_discovery_change(std::uint32_t result)
{
    return aen_type(result) == 2 && aen_info(result) == 0xf0 && aen_log_page(result) == 0x70;
}

}  // namespace rblk
