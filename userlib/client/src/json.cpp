#include "rblk/json.hpp"

#include <algorithm>

extern "C" {  // libnvme 1.3 headers lack C++ linkage guards
#include <nvme/fabrics.h>
#include <nvme/types.h>
}

namespace rblk {

using nlohmann::json;

namespace {

std::string ana_or_empty(const NamespaceInfo& ns)
{
    return ns.ana_state ? ana_state_name(*ns.ana_state) : std::string();
}

std::string iopolicy_or_empty(const std::optional<Iopolicy>& p)
{
    return p ? iopolicy_name(*p) : std::string();
}

// What every path of a namespace shares.
json namespace_base_json(const NamespaceInfo& ns)
{
    return {{"nsid", ns.nsid},
            {"device", ns.device()},
            {"size_bytes", ns.size_bytes},
            {"lba_size", ns.lba_size}};
}

// One namespace as one path of it sees it.
json namespace_path_json(const ControllerInfo& c, const NamespaceInfo& ns)
{
    return {{"name", c.name},
            {"path_disk", ns.path_disk},
            {"ana_state", ana_or_empty(ns)},
            {"anagrpid", ns.anagrpid.value_or(0)}};
}

// "traddr=10.0.0.1,trsvcid=4420[,host_traddr=10.0.0.2]": the address as
// nvme's sysfs "address" file (and so nvme-cli) writes it.
std::string nvme_address(const ControllerInfo& c)
{
    std::string a = "traddr=" + c.traddr + ",trsvcid=" + std::to_string(c.trsvcid);
    if (!c.host_traddr.empty())
        a += ",host_traddr=" + c.host_traddr;
    return a;
}

}  // namespace

json namespace_json(const NamespaceInfo& ns)
{
    json j = namespace_base_json(ns);
    j["path_disk"] = ns.path_disk;
    j["ana_state"] = ana_or_empty(ns);
    j["anagrpid"] = ns.anagrpid.value_or(0);
    return j;
}

json controller_json(const ControllerInfo& c)
{
    json namespaces = json::array();
    for (const NamespaceInfo& ns : c.namespaces)
        namespaces.push_back(namespace_json(ns));
    return {{"name", c.name},
            {"id", c.id},
            {"state", state_name(c.state)},
            {"transport", c.transport},
            {"traddr", c.traddr},
            {"trsvcid", c.trsvcid},
            {"subnqn", c.subnqn},
            {"hostnqn", c.hostnqn},
            {"cntlid", c.cntlid},
            {"nr_io_queues", c.nr_io_queues},
            {"nr_write_queues", c.nr_write_queues},
            {"nr_poll_queues", c.nr_poll_queues},
            {"queue_size", c.queue_size},
            {"host_traddr", c.host_traddr},
            {"tos", c.tos},
            {"discovery", c.discovery},
            {"subsys_id", c.subsys_id ? static_cast<std::int64_t>(*c.subsys_id) : -1},
            {"multipath", c.multipath},
            {"iopolicy", iopolicy_or_empty(c.iopolicy)},
            {"anatt", c.anatt},
            {"dhchap", dhchap_name(c.dhchap)},
            {"namespaces", std::move(namespaces)}};
}

json controller_detail_json(const ControllerInfo& c)
{
    json j = controller_json(c);
    j["hostid"] = c.hostid;
    j["kato"] = c.kato;
    j["reconnect_delay"] = c.reconnect_delay;
    j["ctrl_loss_tmo"] = c.ctrl_loss_tmo;
    j["fast_io_fail_tmo"] = c.fast_io_fail_tmo;
    j["model"] = c.model;
    j["serial"] = c.serial;
    j["firmware"] = c.firmware;
    if (c.state_since_ms)
        j["state_since_ms"] = *c.state_since_ms;
    if (c.next_reconnect_ms)
        j["next_reconnect_ms"] = *c.next_reconnect_ms;
    if (c.loss_deadline_ms)
        j["loss_deadline_ms"] = *c.loss_deadline_ms;
    return j;
}

json subsystem_json(const SubsystemInfo& s)
{
    json paths = json::array();
    // One entry a disk: with multipath the head, which all paths share;
    // without it each path's own disk of the namespace.
    json namespaces = json::array();
    std::vector<std::string> disks;
    for (const ControllerInfo& c : s.paths) {
        paths.push_back({{"name", c.name},
                         {"id", c.id},
                         {"state", state_name(c.state)},
                         {"transport", c.transport},
                         {"traddr", c.traddr},
                         {"trsvcid", c.trsvcid},
                         {"host_traddr", c.host_traddr},
                         {"ana_state", path_ana_summary(c)}});
        for (const NamespaceInfo& ns : c.namespaces) {
            auto i = static_cast<std::size_t>(std::find(disks.begin(), disks.end(), ns.disk) -
                                              disks.begin());
            if (i == disks.size()) {
                disks.push_back(ns.disk);
                json entry = namespace_base_json(ns);
                entry["paths"] = json::array();
                namespaces.push_back(std::move(entry));
            }
            namespaces[i]["paths"].push_back(namespace_path_json(c, ns));
        }
    }
    return {{"name", subsys_name(s.id)},
            {"id", s.id},
            {"subnqn", s.subnqn},
            {"hostnqn", s.hostnqn},
            {"multipath", s.multipath},
            {"iopolicy", iopolicy_or_empty(s.iopolicy)},
            {"paths", std::move(paths)},
            {"namespaces", std::move(namespaces)}};
}

json list_json(const std::vector<ControllerInfo>& controllers)
{
    json list = json::array();
    for (const ControllerInfo& c : controllers)
        list.push_back(controller_json(c));
    json subsystems = json::array();
    for (const SubsystemInfo& s : group_subsystems(controllers))
        subsystems.push_back(subsystem_json(s));
    return {{"controllers", std::move(list)}, {"subsystems", std::move(subsystems)}};
}

json list_subsys_json(const std::vector<ControllerInfo>& controllers)
{
    // nvme-cli groups the subsystems by host, in the order first seen.
    json hosts = json::array();
    std::vector<std::string> hostnqns;
    for (const SubsystemInfo& s : group_subsystems(controllers)) {
        auto h = static_cast<std::size_t>(
            std::find(hostnqns.begin(), hostnqns.end(), s.hostnqn) - hostnqns.begin());
        if (h == hostnqns.size()) {
            hostnqns.push_back(s.hostnqn);
            json host = {{"HostNQN", s.hostnqn}};
            if (!s.paths.front().hostid.empty())
                host["HostID"] = s.paths.front().hostid;
            host["Subsystems"] = json::array();
            hosts.push_back(std::move(host));
        }
        json paths = json::array();
        for (const ControllerInfo& c : s.paths) {
            json p = {{"Name", c.name},
                      {"Transport", c.transport},
                      {"Address", nvme_address(c)},
                      {"State", state_name(c.state)}};
            if (const std::string ana = path_ana_summary(c); !ana.empty())
                p["ANAState"] = ana;
            paths.push_back(std::move(p));
        }
        hosts[h]["Subsystems"].push_back(
            {{"Name", subsys_name(s.id)},
             {"NQN", s.subnqn},
             {"IOPolicy", iopolicy_or_empty(s.iopolicy)},
             {"Paths", std::move(paths)}});
    }
    return hosts;
}

json stats_json(const CtrlStats& s)
{
    json j = json::object();
    for (const CtrlStatField& f : kCtrlStatFields)
        j[std::string(f.name)] = s.*f.field;
    return j;
}

json controller_stats_json(const ControllerInfo& c)
{
    return {{"name", c.name}, {"id", c.id}, {"stats", stats_json(c.stats.value_or(CtrlStats{}))}};
}

json rates_json(const StatsRates& r)
{
    constexpr double kMiB = 1024.0 * 1024.0;
    return {{"interval_s", r.seconds},
            {"iops", r.iops()},
            {"read_iops", r.read_iops},
            {"write_iops", r.write_iops},
            {"mib_s", r.bytes_per_s() / kMiB},
            {"read_mib_s", r.read_bytes_per_s / kMiB},
            {"write_mib_s", r.write_bytes_per_s / kMiB}};
}

json controller_stats_json(const ControllerInfo& c, const StatsRates& r)
{
    json j = controller_stats_json(c);
    j["rates"] = rates_json(r);
    return j;
}

json event_json(const StateEvent& e)
{
    return {{"event", "state"},
            {"id", e.id},
            {"name", e.name},
            {"state", state_name(e.state)},
            {"old_state", state_name(e.old_state)}};
}

json module_event_json(const FamilyNotice& n)
{
    if (!n.registered)
        return {{"event", "module"}, {"state", "unloaded"}};
    return {{"event", "module"}, {"state", "loaded"}, {"family_id", n.family_id}};
}

json aen_json(const AenEvent& e)
{
    return {{"event", "aen"},
            {"id", e.id},
            {"name", e.name},
            {"result", e.result},
            {"discovery_log_changed", is_discovery_change(e.result)}};
}

json resv_notice_json(const ResvNoticeEvent& e)
{
    return {{"event", "reservation"},
            {"id", e.id},
            {"name", e.name},
            {"nsid", e.nsid},
            {"disk", e.disk},
            {"notice", resv_notice_name(e.notice)}};
}

json discovery_entry_json(const DiscoveryEntry& e)
{
    json j = {{"trtype", nvmf_trtype_str(e.trtype)},
              {"adrfam", nvmf_adrfam_str(e.adrfam)},
              {"subtype", nvmf_subtype_str(e.subtype)},
              {"treq", nvmf_treq_str(e.treq)},
              {"portid", e.portid},
              {"trsvcid", e.trsvcid},
              {"subnqn", e.subnqn},
              {"traddr", e.traddr},
              {"eflags", nvmf_eflags_str(e.eflags)}};
    if (e.trtype == NVMF_TRTYPE_RDMA) {
        j["rdma_prtype"] = nvmf_prtype_str(e.rdma_prtype);
        j["rdma_qptype"] = nvmf_qptype_str(e.rdma_qptype);
        j["rdma_cms"] = nvmf_cms_str(e.rdma_cms);
        j["rdma_pkey"] = e.rdma_pkey;
    } else if (e.trtype == NVMF_TRTYPE_TCP) {
        j["sectype"] = nvmf_sectype_str(e.tcp_sectype);
    }
    return j;
}

json discovery_log_json(const DiscoveryLog& log)
{
    json records = json::array();
    for (const DiscoveryEntry& e : log.entries)
        records.push_back(discovery_entry_json(e));
    return {{"genctr", log.genctr}, {"records", std::move(records)}};
}

}  // namespace rblk
