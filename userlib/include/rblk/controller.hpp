// What the kernel reports about controllers, namespaces, counters and state
// changes, decoded from the "rblk" netlink messages (see attr_codec.hpp).
#pragma once

#include <uapi/rblk.h>

#include <cstdint>
#include <optional>
#include <string>
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

struct NamespaceInfo {
    std::uint32_t nsid = 0;
    std::string disk;  // "rblk0n1"
    std::uint64_t size_bytes = 0;
    std::uint32_t lba_size = 0;

    std::string device() const { return "/dev/" + disk; }
};

struct CtrlStats {
    std::uint64_t reads = 0;
    std::uint64_t writes = 0;
    std::uint64_t read_bytes = 0;
    std::uint64_t write_bytes = 0;
    std::uint64_t errors = 0;
    std::uint64_t reconnects = 0;
    std::uint64_t inflight = 0;

    bool operator==(const CtrlStats&) const = default;
};

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
    std::uint32_t nr_io_queues = 0;
    std::uint32_t queue_size = 0;
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
    std::vector<NamespaceInfo> namespaces;
    std::optional<CtrlStats> stats;  // only in GET_STATS replies
};

// RBLK_CMD_EVENT on the "events" multicast group.
struct StateEvent {
    std::uint32_t id = 0;
    std::string name;
    CtrlState state = CtrlState::New;
    CtrlState old_state = CtrlState::New;
};

}  // namespace rblk
