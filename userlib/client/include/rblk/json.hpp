// The JSON view of controllers, namespaces, counters and events: the
// machine-readable output of rblkctl. The schema is stable; add keys, never
// rename or remove them.
//
// list:  {"controllers": [CONTROLLER, ...], "subsystems": [SUBSYSTEM, ...]}
// CONTROLLER: {"name": "rblk0", "id": 0, "state": "live", "transport": "rdma",
//              "traddr": "10.0.0.1", "trsvcid": 4420, "subnqn": "nqn...",
//              "hostnqn": "nqn...", "cntlid": 1, "nr_io_queues": 2,
//              "nr_write_queues": 0, "nr_poll_queues": 0 (granted; 0 = none),
//              "queue_size": 128, "host_traddr": "" (none) or "10.0.0.2",
//              "tos": -1 (default) or 0..255, "discovery": false (true: a
//              discovery controller, no namespaces), "subsys_id": 0 (the
//              subsystem it is a path of; -1: none, a discovery controller),
//              "multipath": true (its namespaces
//              are head disks shared by the subsystem's paths), "iopolicy":
//              "numa" | "round-robin" | "queue-depth" (the subsystem's; ""
//              when not reported), "anatt": 10 (ANA transition time, s; 0:
//              no ANA), "dhchap": "none" | "host" | "bidirectional" (the
//              DH-HMAC-CHAP secrets it holds, never their value),
//              "namespaces": [NAMESPACE, ...]}
// NAMESPACE:  {"nsid": 1, "device": "/dev/rblk0n1" (with multipath the head),
//              "size_bytes": 1073741824, "lba_size": 512, "path_disk":
//              "rblk0c1n1" (the hidden per-path disk; "" without multipath),
//              "ana_state": "optimized" | "non-optimized" | "inaccessible" |
//              "persistent-loss" | "change" ("" without ANA), "anagrpid": 1
//              (0 without ANA)}
// SUBSYSTEM:  {"name": "rblk-subsys0", "id": 0, "subnqn", "hostnqn",
//              "multipath", "iopolicy", "paths": [PATH, ...] (by id),
//              "namespaces": [{"nsid", "device", "size_bytes", "lba_size",
//              "paths": [{"name": "rblk0", "path_disk", "ana_state",
//              "anagrpid"}, ...]}, ...] (one entry a disk: with multipath
//              each head once, with every path under it)}
// PATH:       {"name": "rblk0", "id": 0, "state", "transport", "traddr",
//              "trsvcid", "host_traddr", "ana_state": the path's namespaces'
//              state, comma-separated in namespace order where they differ
//              ("" without ANA)}
// list-subsys: nvme-cli's shape: [{"HostNQN": "nqn...", "HostID": "uuid"
//        (when known), "Subsystems": [{"Name": "rblk-subsys0", "NQN":
//        "nqn...", "IOPolicy": "numa", "Paths": [{"Name": "rblk0",
//        "Transport": "rdma", "Address": "traddr=10.0.0.1,trsvcid=4420"
//        (",host_traddr=..." when set), "State": "live", "ANAState":
//        "optimized" (when reported)}, ...]}, ...]}, ...] (one entry a host NQN)
// show:  CONTROLLER plus "hostid", "kato", "reconnect_delay", "ctrl_loss_tmo",
//        "fast_io_fail_tmo", "model", "serial", "firmware", and, when the
//        kernel reports them, "state_since_ms", "next_reconnect_ms",
//        "loss_deadline_ms".
// stats: {"name": "rblk0", "id": 0, "stats": STATS}
// STATS: one integer per counter, keyed by its name in kCtrlStatFields
//        (rblk/controller.hpp): {"reads", "writes", "read_bytes", ...}
// stats --watch: one stats object a line, each with "rates": RATES over the
//        interval since the previous sample
// RATES: {"interval_s", "iops", "read_iops", "write_iops", "mib_s",
//         "read_mib_s", "write_mib_s"} (numbers; MiB = 2^20 bytes)
// event: {"event": "state", "id": 0, "name": "rblk0", "state": "live",
//         "old_state": "connecting"}
// aen (monitor): {"event": "aen", "id": 3, "name": "rblk3", "result": 7405570,
//         "discovery_log_changed": true}
// reservation notice (monitor): {"event": "reservation", "id": 1,
//         "name": "rblk1", "nsid": 1, "disk": "rblk1n1",
//         "notice": "registration-preempted"} (resv_notice_name())
// discover: nvme-cli 2.x's shape and strings (libnvme's nvmf_*_str()):
//        {"genctr": 5, "records": [{"trtype": "rdma", "adrfam": "ipv4",
//         "subtype": "nvme subsystem", "treq": "not specified", "portid": 1,
//         "trsvcid": "4420", "subnqn": "nqn...", "traddr": "10.0.0.1",
//         "eflags": "none", and for rdma "rdma_prtype": "not specified",
//         "rdma_qptype": "connected", "rdma_cms": "rdma-cm", "rdma_pkey": 0
//         (a number, as nvme-cli), for tcp "sectype": "none"}, ...]}
// module event (monitor): {"event": "module", "state": "unloaded"} when the
//         rblk family goes away, {"event": "module", "state": "loaded",
//         "family_id": 37} when it is registered again
#pragma once

#include "rblk/controller.hpp"
#include "rblk/discovery.hpp"
#include "rblk/family_notice.hpp"
#include "rblk/stats_rate.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace rblk {

nlohmann::json namespace_json(const NamespaceInfo& ns);
nlohmann::json controller_json(const ControllerInfo& c);         // list entry
nlohmann::json controller_detail_json(const ControllerInfo& c);  // show
nlohmann::json list_json(const std::vector<ControllerInfo>& controllers);
nlohmann::json subsystem_json(const SubsystemInfo& s);  // a list "subsystems" entry
// list-subsys: nvme-cli's `nvme list-subsys -o json` shape.
nlohmann::json list_subsys_json(const std::vector<ControllerInfo>& controllers);
nlohmann::json stats_json(const CtrlStats& s);
nlohmann::json controller_stats_json(const ControllerInfo& c);  // c.stats must be set
nlohmann::json rates_json(const StatsRates& r);
// A stats --watch line: controller_stats_json(c) plus "rates".
nlohmann::json controller_stats_json(const ControllerInfo& c, const StatsRates& r);
nlohmann::json event_json(const StateEvent& e);
nlohmann::json module_event_json(const FamilyNotice& n);
nlohmann::json aen_json(const AenEvent& e);
nlohmann::json resv_notice_json(const ResvNoticeEvent& e);
nlohmann::json discovery_entry_json(const DiscoveryEntry& e);
nlohmann::json discovery_log_json(const DiscoveryLog& log);

}  // namespace rblk
