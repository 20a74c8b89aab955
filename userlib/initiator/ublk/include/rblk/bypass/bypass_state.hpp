// The state of the bypass block servers (`rblkctl connect --path bypass`),
// which `list`, `show` and `disconnect` read: one JSON file a server,
// /run/rblk/bypass/<name>.json, written by the server itself (atomically:
// a temporary file renamed) when it starts, at each change of its
// controller's state, and removed when it exits cleanly. A server killed
// leaves its file behind: the pid is then gone (or is another process: its
// start time differs) and the entry reads as "dead", for `disconnect` to
// clean up (the leftover ublk device deleted, the file removed).
//
// Files rather than a control socket: a dead server still has its entry,
// `list` needs no server to answer, and an administrator can read them.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rblk::bypass {

inline constexpr const char* kBypassRunDir = "/run/rblk/bypass";

// One namespace a server serves, and its device.
struct BypassNamespace {
    std::uint32_t nsid = 1;
    std::uint32_t ublk_id = 0;
    std::uint64_t size_bytes = 0;
    std::uint32_t lba_size = 0;

    std::string device() const { return "/dev/ublkb" + std::to_string(ublk_id); }
};

struct BypassState {
    std::string name;             // bypass0
    int pid = 0;
    std::uint64_t starttime = 0;  // /proc/<pid>/stat field 22, against pid reuse
    std::string state;            // connecting, live, reconnecting, failfast, lost, stopping; "dead" when read
    std::string reason;           // the last change's, for people
    std::string transport = "rdma";
    std::string traddr;
    std::int64_t trsvcid = 4420;
    std::string subnqn;
    std::string hostnqn;
    // What was asked: one nsid, or (0) every active namespace.
    std::uint32_t nsid = 0;
    std::vector<BypassNamespace> namespaces;  // empty until the devices are added
    std::uint32_t nr_io_queues = 0;
    std::uint32_t queue_size = 0;
    std::string log;              // the detached server's log file, if any

    // "/dev/ublkb0,/dev/ublkb1", or "" before the devices are added.
    std::string devices() const;
    bool serves(const std::string& device) const;  // /dev/ublkbN or ublkbN
};

// The file's JSON, and back (nullopt when it is not a server's state: a
// missing or mistyped field).
nlohmann::json bypass_state_json(const BypassState& s);
std::optional<BypassState> parse_bypass_state(const std::string& text);
// What `list --json` shows of a server: the state's fields, with the
// namespaces as the kernel controllers' "namespaces" entries are.
nlohmann::json bypass_list_json(const BypassState& s);

// Whether `pid` is the process that started at `starttime` and has not exited.
bool bypass_process_alive(int pid, std::uint64_t starttime);
std::uint64_t process_starttime(int pid);  // 0 when unknown

// Every server's state in `dir`, by name; a server gone reads "dead".
std::vector<BypassState> load_bypass_states(const std::string& dir = kBypassRunDir);
// Writes `s` as dir/<name>.json atomically (throws std::runtime_error).
void save_bypass_state(const BypassState& s, const std::string& dir = kBypassRunDir);
// Claims the lowest free name bypassN by creating its file (O_EXCL), filled from `s`.
std::string reserve_bypass_name(BypassState& s, const std::string& dir = kBypassRunDir);
void remove_bypass_state(const std::string& name, const std::string& dir = kBypassRunDir);
// The server called `name`, or serving the device `name` (/dev/ublkbN or ublkbN).
std::optional<BypassState> find_bypass(const std::vector<BypassState>& all, const std::string& name);

}  // namespace rblk::bypass
