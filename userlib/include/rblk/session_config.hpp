// Persistent sessions: the controllers to (re)create, as JSON in the spirit
// of libnvme's config.json (hosts -> subsystems -> ports).
//
// {
//   "hosts": [
//     {
//       "hostnqn": "nqn.2014-08.org.nvmexpress:uuid:...",   (optional)
//       "hostid": "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx",     (optional)
//       "subsystems": [
//         {
//           "nqn": "nqn.2024-01.io.example:sub1",
//           "ports": [
//             { "transport": "rdma", "traddr": "10.0.0.1", "trsvcid": 4420,
//               "nr_io_queues": 4, "queue_size": 128, "keep_alive_tmo": 5,
//               "reconnect_delay": 10, "ctrl_loss_tmo": 600,
//               "fast_io_fail_tmo": -1, "duplicate_connect": false,
//               "host_traddr": "10.0.0.2", "tos": 0,
//               "nr_write_queues": 2, "nr_poll_queues": 1 }
//           ]
//         }
//       ]
//     }
//   ]
// }
// Only "hosts", "subsystems", "nqn", "ports" and a port's "traddr" are
// required; "transport" defaults to "rdma", "trsvcid" (integer or string,
// as libnvme writes it) to 4420, the rest to the kernel's defaults. `save`
// writes host_traddr, tos, nr_write_queues and nr_poll_queues only when the
// controller has them (a source address, a tos, queues of that type granted).
// Unknown keys are errors, so a typo is not silently ignored.
#pragma once

#include "rblk/connect_options.hpp"
#include "rblk/controller.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rblk {

inline constexpr const char* kDefaultSessionsFile = "/etc/rblk/sessions.json";

// Every port of every subsystem of every host, as validated ConnectOptions.
// Throws InvalidOption naming the JSON path: "hosts[0].subsystems[1].ports[0]: ...".
std::vector<ConnectOptions> parse_sessions(const nlohmann::json& config);
// read_json_file + parse_sessions; every message starts with the file
// ("/etc/rblk/sessions.json: hosts[0]...: ...", "stdin: ..." for "-").
std::vector<ConnectOptions> load_sessions_file(const std::string& path);

// The sessions file for the controllers that exist now (what `save` writes):
// grouped by host identity, then subsystem, ports in controller order.
// Discovery controllers are left out (connect-all re-creates those).
nlohmann::json sessions_json(const std::vector<ControllerInfo>& controllers);

// True when controller c already serves session o (same transport, address,
// port, subsystem and, when o names one, host NQN).
bool serves(const ControllerInfo& c, const ConnectOptions& o);

// What `apply` does for one session: connect, or nothing because
// `existing` already serves it.
struct SessionAction {
    ConnectOptions options;
    std::optional<std::string> existing;  // controller name
};
std::vector<SessionAction> plan_apply(const std::vector<ConnectOptions>& sessions,
                                      const std::vector<ControllerInfo>& controllers);

}  // namespace rblk
