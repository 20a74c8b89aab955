#include "rblk/json.hpp"

extern "C" {  // libnvme 1.3 headers lack C++ linkage guards
#include <nvme/fabrics.h>
#include <nvme/types.h>
}

namespace rblk {

using nlohmann::json;

json namespace_json(const NamespaceInfo& ns)
{
    return {{"nsid", ns.nsid},
            {"device", ns.device()},
            {"size_bytes", ns.size_bytes},
            {"lba_size", ns.lba_size}};
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

json list_json(const std::vector<ControllerInfo>& controllers)
{
    json list = json::array();
    for (const ControllerInfo& c : controllers)
        list.push_back(controller_json(c));
    return {{"controllers", std::move(list)}};
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
