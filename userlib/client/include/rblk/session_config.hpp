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
//               "nr_write_queues": 2, "nr_poll_queues": 1,
//               "dhchap_key": "DHHC-1:01:...:", "dhchap_ctrl_key": "DHHC-1:02:...:" }
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
// DH-HMAC-CHAP keys take libnvme's names (connect's --dhchap-secret and
// --dhchap-ctrl-secret); a host's "dhchap_key" is its ports' unless a port
// has its own. Unknown keys are errors, so a typo is not silently ignored. The queue
// counts and depth `save` writes are those connect asked for, not what the
// target granted (saved_queues()).
//
// libnvme's config.json (/etc/nvme/config.json: what `nvme config --dump`
// writes and `nvme connect-all` reads) has the same hosts -> subsystems ->
// ports tree with these differences: the document is the list of hosts
// itself (no "hosts" object), trsvcid is a string, a value at its default
// is left out (0 for the counts and timeouts, 600 for ctrl_loss_tmo, -1
// for tos, false for flags), every port names its "transport", and it
// holds keys rblk does not take (host_iface, tls, ...). rblk
// reads it with libnvme's own reader (parse_libnvme_config()) and writes
// into it only by merging (merge_libnvme_config()): it is nvme-cli's file.
#pragma once

#include "rblk/connect_options.hpp"
#include "rblk/controller.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rblk {

inline constexpr const char* kDefaultSessionsFile = "/etc/rblk/sessions.json";
inline constexpr const char* kLibnvmeConfigFile = "/etc/nvme/config.json";

// The two files apply reads and save writes.
enum class SessionFormat { Rblk, Libnvme };

// Sessions and what reading them left out or changed, one line each.
struct SessionsRead {
    std::vector<ConnectOptions> sessions;
    std::vector<std::string> warnings;
};

// Every port of every subsystem of every host, as validated ConnectOptions.
// Throws InvalidOption naming the JSON path: "hosts[0].subsystems[1].ports[0]: ...".
std::vector<ConnectOptions> parse_sessions(const nlohmann::json& config);
// read_json_file + parse_sessions; every message starts with the file
// ("/etc/rblk/sessions.json: hosts[0]...: ...", "stdin: ..." for "-").
std::vector<ConnectOptions> load_sessions_file(const std::string& path);

// libnvme's config.json as sessions, read by libnvme (nvme_read_config()
// and the tree it builds) so that rblk takes the file as nvme-cli does:
// repeated hosts, subsystems and ports merged as libnvme merges them (a
// later value fills only what an earlier one left unset), hosts without a
// hostnqn skipped, json-c's coercions (trsvcid 4420 is "4420"), 0 and tos
// -1 "not set". Its rdma ports are sessions, in the file's order; a port
// of another transport, or a discovery controller, is skipped with a
// warning, and so is what libnvme skips silently (a host without a
// hostnqn, a subsystem without an nqn, a port without a transport).
// Deliberately unlike libnvme 1.3, ctrl_loss_tmo and tos are honoured
// (libnvme writes them but its reader drops them). DH-HMAC-CHAP keys are
// taken as libnvme's connect takes them (a port's dhchap_key, else its
// host's). Keys that would change what the connect means but rblk cannot
// do (TLS keys, host_iface) are warnings naming the key, never its value; the rest
// (hdr_digest, persistent, hostsymname, ...) are ignored, as libnvme
// ignores what does not apply. A list that is not a list, a trsvcid that
// is no port number or a value connect refuses is InvalidOption naming the
// JSON path ("[0].subsystems[1].ports[0]: ...").
SessionsRead parse_libnvme_config(const nlohmann::json& config);
// The file's bytes through libnvme; messages and warnings start with the
// file ("stdin" for "-").
SessionsRead load_libnvme_config_file(const std::string& path);

// The sessions file for the controllers that exist now (what `save` writes):
// grouped by host identity, then subsystem, ports in controller order.
// Discovery controllers are left out (connect-all re-creates those).
nlohmann::json sessions_json(const std::vector<ControllerInfo>& controllers);
// The same controllers as libnvme's config.json, as libnvme writes it
// (defaults left out, trsvcid a string, libnvme's key order).
nlohmann::ordered_json libnvme_config_json(const std::vector<ControllerInfo>& controllers);
// `config` (a config.json) with the controllers merged in: each one's port
// found (same host, subsystem, rdma address, port and source address) or
// added; in a found port only the values rblk owns (queues, timeouts, tos)
// are set or, at libnvme's default, removed. Everything else, and every
// port rblk does not serve now, is kept as it is, in its order: the file is
// nvme-cli's too. Throws InvalidOption for a document that is not a list of
// hosts, or a list in it that is not a list.
nlohmann::ordered_json merge_libnvme_config(nlohmann::ordered_json config,
                                            const std::vector<ControllerInfo>& controllers);
// merge_libnvme_config() into the file at `path` (a link: the file it
// names), written atomically with the file's mode and owner, never
// readable by others once it holds a DH-HMAC-CHAP or TLS key; a new file
// is 0644. A file the merge leaves the same is not written (false).
bool save_libnvme_config_file(const std::string& path,
                              const std::vector<ControllerInfo>& controllers);

// The queues a saved session asks for: what connect asked for
// (ControllerInfo::requested), so that a target that once granted fewer
// or smaller queues does not lower the request for good; each value the
// module does not report (one from before RBLK_ATTR_REQ_*) is the granted one.
struct SavedQueues {
    std::uint32_t nr_io_queues = 0;
    std::uint32_t nr_write_queues = 0;
    std::uint32_t nr_poll_queues = 0;
    std::uint32_t queue_size = 0;
};
SavedQueues saved_queues(const ControllerInfo& c);

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
