// The JSON view of controllers, namespaces, counters and events: the
// machine-readable output of rblkctl. The schema is stable; add keys, never
// rename or remove them.
//
// list:  {"controllers": [CONTROLLER, ...]}
// CONTROLLER: {"name": "rblk0", "id": 0, "state": "live", "transport": "rdma",
//              "traddr": "10.0.0.1", "trsvcid": 4420, "subnqn": "nqn...",
//              "hostnqn": "nqn...", "cntlid": 1, "nr_io_queues": 2,
//              "nr_write_queues": 0, "nr_poll_queues": 0 (granted; 0 = none),
//              "queue_size": 128, "host_traddr": "" (none) or "10.0.0.2",
//              "tos": -1 (default) or 0..255, "namespaces": [NAMESPACE, ...]}
// NAMESPACE:  {"nsid": 1, "device": "/dev/rblk0n1", "size_bytes": 1073741824,
//              "lba_size": 512}
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
// module event (monitor): {"event": "module", "state": "unloaded"} when the
//         rblk family goes away, {"event": "module", "state": "loaded",
//         "family_id": 37} when it is registered again
#pragma once

#include "rblk/controller.hpp"
#include "rblk/family_notice.hpp"
#include "rblk/stats_rate.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace rblk {

nlohmann::json namespace_json(const NamespaceInfo& ns);
nlohmann::json controller_json(const ControllerInfo& c);         // list entry
nlohmann::json controller_detail_json(const ControllerInfo& c);  // show
nlohmann::json list_json(const std::vector<ControllerInfo>& controllers);
nlohmann::json stats_json(const CtrlStats& s);
nlohmann::json controller_stats_json(const ControllerInfo& c);  // c.stats must be set
nlohmann::json rates_json(const StatsRates& r);
// A stats --watch line: controller_stats_json(c) plus "rates".
nlohmann::json controller_stats_json(const ControllerInfo& c, const StatsRates& r);
nlohmann::json event_json(const StateEvent& e);
nlohmann::json module_event_json(const FamilyNotice& n);

}  // namespace rblk
