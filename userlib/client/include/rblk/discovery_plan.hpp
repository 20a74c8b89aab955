// What connect-all and monitor --connect-new decide from discovery logs:
// which entries to connect, which to skip and why, which referrals to follow.
// Pure functions over logs and controller lists (the reading of a log is a
// callable), so the host tests cover every rule without a kernel. Also
// /etc/nvme/discovery.conf, read as nvme-cli reads it.
#pragma once

#include "rblk/connect_options.hpp"
#include "rblk/controller.hpp"
#include "rblk/discovery.hpp"

#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace rblk {

inline constexpr const char* kDefaultDiscoveryConf = "/etc/nvme/discovery.conf";
// Keep-alive of a persistent discovery controller unless -k says otherwise
// (nvme-cli's NVMF_DEF_DISC_TMO).
inline constexpr std::int64_t kDefaultDiscoveryKato = 30;
// Referrals followed at most this deep below a discovery controller.
inline constexpr int kMaxReferralDepth = 8;

// A discovery.conf line that has options: its number (from 1) and its
// words. Blank lines and lines whose first word starts with '#' are
// skipped; words are split at blanks, with no quoting (as nvme-cli).
struct ConfLine {
    int line = 0;
    std::vector<std::string> args;
};
std::vector<ConfLine> parse_discovery_conf(std::istream& in);

// A one-line name of a target for messages: "10.0.0.1:4420 nqn...", IPv6 bracketed.
std::string target_name(const ConnectOptions& o);

// The options that connect the discovery controller `disc` describes: its
// address, NQN and host identity, discovery set, no I/O queue options;
// keep-alive only when persistent (disc.kato, else kDefaultDiscoveryKato).
ConnectOptions discovery_connect_options(const ConnectOptions& disc, bool persistent);

// An existing persistent discovery controller (discovery, keep-alive on)
// for the same address, port, NQN, host NQN and source address: its name.
std::optional<std::string> find_persistent_discovery(const std::vector<ControllerInfo>& existing,
                                                     const ConnectOptions& disc);

// What one log asks for. `from` is the discovery controller it came from:
// I/O controllers get its options with the entry's address, port and NQN;
// referrals become discovery controllers with the same options.
struct ConnectAllPlan {
    std::vector<ConnectOptions> connect;    // new I/O controllers
    std::vector<ConnectOptions> referrals;  // discovery controllers to read next
    std::vector<std::string> existing;      // names of controllers already serving entries
    std::vector<std::string> skipped;       // one line per entry not connected, and why
};
// Connects valid "nvme subsystem" entries over RDMA that no non-discovery
// controller of `existing` serves (same transport, address, port, NQN,
// host NQN, source address) and that `planned` does not hold already;
// "current discovery subsystem" entries and other transports are skipped.
ConnectAllPlan plan_connect_all(const DiscoveryLog& log, const ConnectOptions& from,
                                const std::vector<ControllerInfo>& existing,
                                const std::vector<ConnectOptions>& planned = {});

// Reads the log of discovery controller `disc`; depth 0 for a start.
using DiscoverFn = std::function<DiscoveryLog(const ConnectOptions& disc, int depth)>;

struct DiscoveryWalk {
    std::vector<ConnectOptions> connect;
    std::vector<std::string> existing;
    std::vector<std::string> warnings;  // entries skipped, referrals not followed, failures
    std::size_t logs_read = 0;
};
// Reads every start, then the referrals they lead to, breadth first, each
// discovery controller once (a loop ends with a warning), at most
// max_depth below a start. A discovery controller that cannot be read is a
// warning; when no start at all could be read, the first start's error is
// thrown.
DiscoveryWalk walk_discovery(const std::vector<ConnectOptions>& starts,
                             const std::vector<ControllerInfo>& existing,
                             const DiscoverFn& discover, int max_depth = kMaxReferralDepth);

}  // namespace rblk
