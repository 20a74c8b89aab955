#include "format.hpp"

#include <rblk/json.hpp>

extern "C" {  // libnvme 1.3 headers lack C++ linkage guards
#include <nvme/fabrics.h>
#include <nvme/types.h>
}

#include <algorithm>
#include <cstdio>
#include <string>
#include <sstream>

namespace rblkctl {
namespace {

std::string devices(const rblk::ControllerInfo& c)
{
    std::string s;
    for (const rblk::NamespaceInfo& ns : c.namespaces)
        s += (s.empty() ? "" : ",") + ns.device();
    return s.empty() ? "-" : s;
}

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

std::string subnqn_of(const rblk::ControllerInfo& c)
{
    return c.discovery ? c.subnqn + " (discovery)" : c.subnqn;
}

// The I/O queues in all, and by type when there are write or poll queues:
// "2", or "4 (2+1w+1p)" (with write queues the first are the read queues).
std::string queues(const rblk::ControllerInfo& c)
{
    const std::uint32_t total = c.nr_io_queues + c.nr_write_queues + c.nr_poll_queues;
    std::string s = std::to_string(total);
    if (c.nr_write_queues == 0 && c.nr_poll_queues == 0)
        return s;
    s += " (" + std::to_string(c.nr_io_queues);
    if (c.nr_write_queues > 0)
        s += "+" + std::to_string(c.nr_write_queues) + "w";
    if (c.nr_poll_queues > 0)
        s += "+" + std::to_string(c.nr_poll_queues) + "p";
    return s + ")";
}

// A timeout in seconds, negative (or 0 for keep-alive) meaning none.
std::string seconds_or_off(std::int64_t s, bool zero_is_off = false)
{
    return s < 0 || (zero_is_off && s == 0) ? "off" : std::to_string(s) + " s";
}

// The kernel's milliseconds as seconds, one decimal: "in 4.2 s", "12.3 s ago".
std::string ms_as_seconds(const std::optional<std::uint64_t>& ms, const char* before,
                          const char* after)
{
    if (!ms)
        return "-";
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%s%.1f s%s", before, static_cast<double>(*ms) / 1000.0,
                  after);
    return buf;
}

// The sizes of a controller's disks, in its DEVICES order.
std::string sizes(const rblk::ControllerInfo& c)
{
    std::string s;
    for (const rblk::NamespaceInfo& ns : c.namespaces)
        s += (s.empty() ? "" : ",") + human_size(ns.size_bytes);
    return s.empty() ? "-" : s;
}

}  // namespace

std::string human_size(std::uint64_t bytes)
{
    static constexpr const char* kUnits = "BKMGTPE";
    if (bytes < 1024)
        return std::to_string(bytes) + "B";
    double v = static_cast<double>(bytes);
    std::size_t unit = 0;
    // Step up also when one decimal would round to 1024.0 of this unit.
    while (v >= 1023.95 && unit + 1 < std::char_traits<char>::length(kUnits)) {
        v /= 1024.0;
        ++unit;
    }
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f%c", v, kUnits[unit]);
    return buf;
}

std::string align_table(const std::vector<std::vector<std::string>>& rows)
{
    std::vector<std::size_t> width;
    for (const auto& row : rows) {
        width.resize(std::max(width.size(), row.size()));
        for (std::size_t i = 0; i < row.size(); ++i)
            width[i] = std::max(width[i], row[i].size());
    }
    std::string out;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            line += row[i];
            if (i + 1 < row.size())
                line.append(width[i] - row[i].size() + 2, ' ');
        }
        out += line + '\n';
    }
    return out;
}

std::string format_list(const std::vector<rblk::ControllerInfo>& controllers,
                        const std::vector<std::vector<std::string>>& extra_rows)
{
    std::vector<std::vector<std::string>> rows = {
        {"NAME", "STATE", "ANA", "TRANSPORT", "TRADDR", "TRSVCID", "QUEUES", "QSIZE", "SUBSYS",
         "SUBNQN", "DEVICES", "SIZE"}};
    for (const rblk::ControllerInfo& c : rblk::by_subsystem(controllers))
        rows.push_back({c.name, rblk::state_name(c.state), or_dash(rblk::path_ana_summary(c)),
                        c.transport, c.traddr, std::to_string(c.trsvcid), queues(c),
                        std::to_string(c.queue_size),
                        c.subsys_id ? rblk::subsys_name(*c.subsys_id) : "-", subnqn_of(c),
                        devices(c), sizes(c)});
    rows.insert(rows.end(), extra_rows.begin(), extra_rows.end());
    return align_table(rows);
}

std::vector<std::string> bypass_list_row(const rblk::bypass::BypassState& s)
{
    // NAME STATE ANA TRANSPORT TRADDR TRSVCID QUEUES QSIZE SUBSYS SUBNQN DEVICES SIZE
    std::string sizes;
    for (const rblk::bypass::BypassNamespace& n : s.namespaces)
        sizes += (sizes.empty() ? "" : ",") + human_size(n.size_bytes);
    return {s.name,
            s.state,
            "-",
            s.transport,
            s.traddr,
            std::to_string(s.trsvcid),
            std::to_string(s.nr_io_queues),
            std::to_string(s.queue_size),
            "-",
            s.subnqn,
            s.namespaces.empty() ? "-" : s.devices(),
            s.namespaces.empty() ? "-" : sizes};
}

std::string format_list_subsys(const std::vector<rblk::ControllerInfo>& controllers)
{
    std::string out;
    for (const rblk::SubsystemInfo& s : rblk::group_subsystems(controllers)) {
        const std::string name = rblk::subsys_name(s.id);
        const std::string indent(name.size() + 3, ' ');
        out += name + " - NQN=" + s.subnqn + '\n' + indent + "hostnqn=" + s.hostnqn + '\n' +
               indent + "iopolicy=" + (s.iopolicy ? rblk::iopolicy_name(*s.iopolicy) : "-") +
               "\n\\\n";
        for (const rblk::ControllerInfo& c : s.paths) {
            const std::string ana = rblk::path_ana_summary(c);
            out += " +- " + c.name + ' ' + c.transport + " traddr=" + c.traddr +
                   ",trsvcid=" + std::to_string(c.trsvcid) +
                   (c.host_traddr.empty() ? "" : ",host_traddr=" + c.host_traddr) + ' ' +
                   rblk::state_name(c.state) + (ana.empty() ? "" : ' ' + ana) + '\n';
        }
    }
    return out;
}

std::string format_connected(const rblk::ControllerInfo& c)
{
    std::string s = c.name + '\n';
    for (const rblk::NamespaceInfo& ns : c.namespaces)
        s += ns.device() + '\n';
    return s;
}

std::string format_show(const rblk::ControllerInfo& c)
{
    std::vector<std::vector<std::string>> rows = {
        {"name:", c.name},
        {"id:", std::to_string(c.id)},
        {"state:", rblk::state_name(c.state)},
        {"state since:", ms_as_seconds(c.state_since_ms, "", " ago")},
        {"transport:", c.transport},
        {"traddr:", c.traddr},
        {"trsvcid:", std::to_string(c.trsvcid)},
        {"host_traddr:", or_dash(c.host_traddr)},
        {"tos:", c.tos < 0 ? std::string("-") : std::to_string(c.tos)},
        {"subnqn:", c.subnqn},
        {"type:", c.discovery ? "discovery" : "io"},
        {"hostnqn:", or_dash(c.hostnqn)},
        {"hostid:", or_dash(c.hostid)},
        {"dhchap:", rblk::dhchap_name(c.dhchap)},
        {"cntlid:", std::to_string(c.cntlid)},
        {"model:", or_dash(c.model)},
        {"serial:", or_dash(c.serial)},
        {"firmware:", or_dash(c.firmware)},
        {"nr_io_queues:", std::to_string(c.nr_io_queues)},
        {"nr_write_queues:", std::to_string(c.nr_write_queues)},
        {"nr_poll_queues:", std::to_string(c.nr_poll_queues)},
        {"queue_size:", std::to_string(c.queue_size)},
        {"kato:", seconds_or_off(c.kato, true)},
        {"reconnect_delay:", seconds_or_off(c.reconnect_delay)},
        {"ctrl_loss_tmo:", seconds_or_off(c.ctrl_loss_tmo)},
        {"fast_io_fail_tmo:", seconds_or_off(c.fast_io_fail_tmo)},
        {"next reconnect:", ms_as_seconds(c.next_reconnect_ms, "in ", "")},
        {"loss deadline:", ms_as_seconds(c.loss_deadline_ms, "in ", "")},
    };
    std::string s = align_table(rows);
    std::vector<std::vector<std::string>> ns_rows = {{"NSID", "DEVICE", "SIZE_BYTES", "LBA_SIZE"}};
    for (const rblk::NamespaceInfo& ns : c.namespaces)
        ns_rows.push_back({std::to_string(ns.nsid), ns.device(), std::to_string(ns.size_bytes),
                           std::to_string(ns.lba_size)});
    return s + '\n' + align_table(ns_rows);
}

std::string format_stats(const rblk::ControllerInfo& c)
{
    // GET_STATS carries no state: only the name and the counters.
    std::vector<std::vector<std::string>> rows = {{"name:", c.name}};
    // Same counter names and order as the JSON form.
    const nlohmann::json counters = rblk::stats_json(c.stats.value_or(rblk::CtrlStats{}));
    for (const auto& [key, value] : counters.items())
        rows.push_back({key + ":", value.dump()});
    return align_table(rows);
}

namespace {

// Fixed widths, so rows printed one at a time line up under the header.
constexpr const char* kStatsHeaderFmt = "%-8s %9s %9s %9s %9s %9s %9s %9s %7s %11s\n";
constexpr const char* kStatsRowFmt =
    "%-8s %9.0f %9.0f %9.0f %9.2f %9.2f %9.2f %9llu %7llu %11llu\n";

template <typename... Args>
std::string printf_string(const char* fmt, Args... args)
{
    char buf[256];
    const int n = std::snprintf(buf, sizeof(buf), fmt, args...);
    return std::string(buf, n < 0 ? 0 : std::min<std::size_t>(n, sizeof(buf) - 1));
}

}  // namespace

std::string format_stats_header()
{
    return printf_string(kStatsHeaderFmt, "NAME", "IOPS", "R_IOPS", "W_IOPS", "MiB/s",
                         "R_MiB/s", "W_MiB/s", "INFLIGHT", "ERRORS", "RECONNECTS");
}

std::string format_stats_row(const rblk::ControllerInfo& c, const rblk::StatsRates& r)
{
    constexpr double kMiB = 1024.0 * 1024.0;
    const rblk::CtrlStats s = c.stats.value_or(rblk::CtrlStats{});
    using ull = unsigned long long;
    return printf_string(kStatsRowFmt, c.name.c_str(), r.iops(), r.read_iops, r.write_iops,
                         r.bytes_per_s() / kMiB, r.read_bytes_per_s / kMiB,
                         r.write_bytes_per_s / kMiB, static_cast<ull>(s.inflight),
                         static_cast<ull>(s.errors), static_cast<ull>(s.reconnects));
}

std::string format_session(const std::string& name, const std::string& subnqn,
                           const std::string& traddr, std::int64_t trsvcid,
                           const std::string& outcome)
{
    // IPv6 literals are bracketed so the port stays unambiguous.
    const bool v6 = traddr.find(':') != std::string::npos;
    const std::string addr = (v6 ? "[" + traddr + "]" : traddr) + ":" + std::to_string(trsvcid);
    return or_dash(name) + "  " + subnqn + "  " + addr + "  " + outcome;
}

std::string format_event(const rblk::StateEvent& e)
{
    return e.name + ": " + rblk::state_name(e.old_state) + " -> " + rblk::state_name(e.state);
}

std::string format_aen(const rblk::AenEvent& e)
{
    char hex[16];
    std::snprintf(hex, sizeof(hex), "0x%08x", e.result);
    return e.name + ": async event " + hex +
           (rblk::is_discovery_change(e.result) ? " (discovery log changed)" : "");
}

std::string format_resv_notice(const rblk::ResvNoticeEvent& e)
{
    return e.name + ": " + or_dash(e.disk) + " (nsid " + std::to_string(e.nsid) +
           "): reservation notice: " + rblk::resv_notice_name(e.notice);
}

std::string format_discovery_log(const rblk::DiscoveryLog& log)
{
    std::ostringstream s;
    s << "\nDiscovery Log Number of Records " << log.numrec << ", Generation counter "
      << log.genctr << '\n';
    for (const rblk::DiscoveryEntry& e : log.entries) {
        char pkey[8];
        std::snprintf(pkey, sizeof(pkey), "0x%04x", e.rdma_pkey);
        s << "=====Discovery Log Entry " << e.index << "======\n"
          << "trtype:  " << nvmf_trtype_str(e.trtype) << '\n'
          << "adrfam:  " << (e.traddr.empty() ? "" : nvmf_adrfam_str(e.adrfam)) << '\n'
          << "subtype: " << nvmf_subtype_str(e.subtype) << '\n'
          << "treq:    " << nvmf_treq_str(e.treq) << '\n'
          << "portid:  " << e.portid << '\n'
          << "trsvcid: " << e.trsvcid << '\n'
          << "subnqn:  " << e.subnqn << '\n'
          << "traddr:  " << e.traddr << '\n'
          << "eflags:  " << nvmf_eflags_str(e.eflags) << '\n';
        if (e.trtype == NVMF_TRTYPE_RDMA)
            s << "rdma_prtype: " << nvmf_prtype_str(e.rdma_prtype) << '\n'
              << "rdma_qptype: " << nvmf_qptype_str(e.rdma_qptype) << '\n'
              << "rdma_cms:    " << nvmf_cms_str(e.rdma_cms) << '\n'
              << "rdma_pkey: " << pkey << '\n';
        else if (e.trtype == NVMF_TRTYPE_TCP)
            s << "sectype: " << nvmf_sectype_str(e.tcp_sectype) << '\n';
    }
    return s.str();
}

std::string format_module_event(const rblk::FamilyNotice& n)
{
    if (!n.registered)
        return "rblk module unloaded";
    return "rblk module loaded (family id " + std::to_string(n.family_id) + ")";
}

}  // namespace rblkctl
