// Human-readable output of rblkctl (the --json forms live in rblk/json.hpp).
// Pure functions returning text, so tests check them without a kernel.
#pragma once

#include <rblk/bypass/bypass_state.hpp>
#include <rblk/controller.hpp>
#include <rblk/discovery.hpp>
#include <rblk/family_notice.hpp>
#include <rblk/stats_rate.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace rblkctl {

// Columns padded to their widest cell, two spaces apart, one row a line.
std::string align_table(const std::vector<std::vector<std::string>>& rows);

// A size as lsblk prints one, powers of 1024 with one decimal: "512B",
// "32.0M", "1.0G".
std::string human_size(std::uint64_t bytes);

// `list`: a header and one row per controller (a path), grouped by
// subsystem (SUBSYS, rblk-subsys<S>; "-" for a discovery controller, in
// none), ANA its namespaces' ANA state
// (path_ana_summary(), "-" without ANA), DEVICES the disks to open (with
// multipath the heads, the same on every path), SIZE the human_size() of
// each.
// `extra_rows`: more rows in the same columns after them (the bypass
// servers, cmd_ublk.cpp).
std::string format_list(const std::vector<rblk::ControllerInfo>& controllers,
                        const std::vector<std::vector<std::string>>& extra_rows = {});
// `list`'s table row of a bypass server, in format_list()'s columns.
std::vector<std::string> bypass_list_row(const rblk::bypass::BypassState& s);
// `list-subsys`: as `nvme list-subsys` prints it, a subsystem a block:
//   rblk-subsys0 - NQN=nqn...
//                  hostnqn=nqn...
//                  iopolicy=numa
//   \ (a line of its own)
//    +- rblk0 rdma traddr=10.0.0.1,trsvcid=4420 live optimized
std::string format_list_subsys(const std::vector<rblk::ControllerInfo>& controllers);
// `connect`: the controller name, then one device path a line.
std::string format_connected(const rblk::ControllerInfo& c);
// `show`: "key: value" lines, then the namespace table. Timeouts in
// seconds or "off", the state's age and the next deadlines in seconds
// ("12.3 s ago", "in 4.2 s"); the JSON form keeps the kernel's numbers.
std::string format_show(const rblk::ControllerInfo& c);
// `stats`: "counter: value" lines.
std::string format_stats(const rblk::ControllerInfo& c);
// `stats --watch`: a header, then a row per interval with the rates over
// it and the in-flight, error and reconnect counters as they are.
std::string format_stats_header();
std::string format_stats_row(const rblk::ControllerInfo& c, const rblk::StatsRates& r);
// `apply`: one line a session, "rblk0  nqn.sub  10.0.0.1:4420  connected".
std::string format_session(const std::string& name, const std::string& subnqn,
                           const std::string& traddr, std::int64_t trsvcid,
                           const std::string& outcome);
// `monitor`: "rblk0: connecting -> live".
std::string format_event(const rblk::StateEvent& e);
// `monitor`: "rblk3: async event 0x0070f002 (discovery log changed)".
std::string format_aen(const rblk::AenEvent& e);
// "rblk1: rblk1n1 (nsid 1): reservation notice: registration-preempted"
std::string format_resv_notice(const rblk::ResvNoticeEvent& e);
// `discover`: as `nvme discover` prints it, strings from libnvme.
std::string format_discovery_log(const rblk::DiscoveryLog& log);
// "rblk module unloaded" / "rblk module loaded (family id 37)"
std::string format_module_event(const rblk::FamilyNotice& n);

}  // namespace rblkctl
