#include "rblk/json.hpp"

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

}  // namespace rblk
