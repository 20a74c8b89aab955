#include "rblk/session_config.hpp"

#include "rblk/error.hpp"
#include "rblk/session_file.hpp"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <tuple>

namespace rblk {
namespace {

using nlohmann::json;

// A JSON node and its path, for messages that say where the problem is.
struct Node {
    const json& value;
    std::string path;

    [[noreturn]] void fail(const std::string& why) const
    {
        throw InvalidOption(path.empty() ? why : path + ": " + why);
    }

    // The document itself has the empty path: "hosts[0].subsystems[1]".
    Node at(const std::string& key) const
    {
        return {value.at(key), path.empty() ? key : path + "." + key};
    }
    Node at(std::size_t i) const { return {value.at(i), path + "[" + std::to_string(i) + "]"}; }
    bool has(const char* key) const { return value.contains(key); }

    const json& object(std::initializer_list<const char*> allowed) const
    {
        if (!value.is_object())
            fail("expected an object");
        for (const auto& [key, v] : value.items())
            if (std::none_of(allowed.begin(), allowed.end(),
                             [&](const char* a) { return key == a; }))
                fail("unknown key '" + key + "'");
        return value;
    }

    Node array(const char* key) const
    {
        if (!has(key))
            fail("missing '" + std::string(key) + "'");
        Node n = at(key);
        if (!n.value.is_array())
            n.fail("expected an array");
        return n;
    }

    std::string string(const char* key) const
    {
        if (!has(key))
            fail("missing '" + std::string(key) + "'");
        Node n = at(key);
        if (!n.value.is_string())
            n.fail("expected a string");
        return n.value.get<std::string>();
    }

    std::optional<std::string> opt_string(const char* key) const
    {
        return has(key) ? std::optional(string(key)) : std::nullopt;
    }

    std::optional<std::int64_t> opt_integer(const char* key) const
    {
        if (!has(key))
            return std::nullopt;
        Node n = at(key);
        if (!n.value.is_number_integer())
            n.fail("expected an integer");
        return n.value.get<std::int64_t>();
    }
};

// libnvme writes trsvcid as a string; accept that and integers.
std::int64_t port_number(const Node& port)
{
    if (!port.has("trsvcid"))
        return RBLK_DEFAULT_TRSVCID;
    Node n = port.at("trsvcid");
    if (n.value.is_number_integer())
        return n.value.get<std::int64_t>();
    if (n.value.is_string()) {
        const std::string s = n.value.get<std::string>();
        if (!s.empty() && s.size() <= 5 && std::all_of(s.begin(), s.end(), ::isdigit))
            return std::stoll(s);
    }
    n.fail("expected a port number");
}

// A port's options on top of its subsystem's NQN and its host's identity.
ConnectOptions parse_port(const Node& port, const ConnectOptions& base)
{
    port.object({"transport", "traddr", "trsvcid", "nr_io_queues", "nr_write_queues",
                 "nr_poll_queues", "queue_size", "keep_alive_tmo", "reconnect_delay",
                 "ctrl_loss_tmo", "fast_io_fail_tmo", "duplicate_connect", "host_traddr",
                 "tos"});
    ConnectOptions o = base;
    o.transport = port.opt_string("transport").value_or("rdma");
    o.traddr = port.string("traddr");
    o.trsvcid = port_number(port);
    o.nr_io_queues = port.opt_integer("nr_io_queues");
    o.nr_write_queues = port.opt_integer("nr_write_queues");
    o.nr_poll_queues = port.opt_integer("nr_poll_queues");
    o.queue_size = port.opt_integer("queue_size");
    o.kato = port.opt_integer("keep_alive_tmo");
    o.reconnect_delay = port.opt_integer("reconnect_delay");
    o.ctrl_loss_tmo = port.opt_integer("ctrl_loss_tmo");
    o.fast_io_fail_tmo = port.opt_integer("fast_io_fail_tmo");
    o.host_traddr = port.opt_string("host_traddr");
    o.tos = port.opt_integer("tos");
    if (port.has("duplicate_connect")) {
        Node d = port.at("duplicate_connect");
        if (!d.value.is_boolean())
            d.fail("expected true or false");
        o.duplicate_connect = d.value.get<bool>();
    }
    try {
        o.validate();
    } catch (const InvalidOption& e) {
        port.fail(e.what());
    }
    return o;
}

}  // namespace

std::vector<ConnectOptions> load_sessions_file(const std::string& path)
{
    const json config = read_json_file(path);
    try {
        return parse_sessions(config);
    } catch (const InvalidOption& e) {
        throw InvalidOption((path == "-" ? "stdin" : path) + ": " + e.what());
    }
}

std::vector<ConnectOptions> parse_sessions(const json& config)
{
    const Node root{config, ""};
    root.object({"hosts"});
    std::vector<ConnectOptions> out;
    const Node hosts = root.array("hosts");
    for (std::size_t h = 0; h < hosts.value.size(); ++h) {
        const Node host = hosts.at(h);
        host.object({"hostnqn", "hostid", "subsystems"});
        ConnectOptions base;
        base.hostnqn = host.opt_string("hostnqn");
        base.hostid = host.opt_string("hostid");
        const Node subsystems = host.array("subsystems");
        for (std::size_t s = 0; s < subsystems.value.size(); ++s) {
            const Node subsys = subsystems.at(s);
            subsys.object({"nqn", "ports"});
            base.subnqn = subsys.string("nqn");
            const Node ports = subsys.array("ports");
            for (std::size_t p = 0; p < ports.value.size(); ++p)
                out.push_back(parse_port(ports.at(p), base));
        }
    }
    return out;
}

json sessions_json(const std::vector<ControllerInfo>& controllers)
{
    // Insertion-ordered grouping: hosts and subsystems appear as first met.
    json hosts = json::array();
    const auto find_or_add = [](json& array, const auto& match, json fresh) -> json& {
        for (json& e : array)
            if (match(e))
                return e;
        array.push_back(std::move(fresh));
        return array.back();
    };
    for (const ControllerInfo& c : controllers) {
        // Not sessions: the file has no way to say "discovery", and
        // connect-all --persistent (discovery.conf) brings them back.
        if (c.discovery)
            continue;
        json fresh_host = {{"subsystems", json::array()}};
        if (!c.hostnqn.empty())
            fresh_host["hostnqn"] = c.hostnqn;
        if (!c.hostid.empty())
            fresh_host["hostid"] = c.hostid;
        json& host = find_or_add(
            hosts,
            [&](const json& h) {
                return h.value("hostnqn", "") == c.hostnqn && h.value("hostid", "") == c.hostid;
            },
            std::move(fresh_host));
        json& subsys = find_or_add(
            host["subsystems"], [&](const json& s) { return s["nqn"] == c.subnqn; },
            {{"nqn", c.subnqn}, {"ports", json::array()}});
        json port = {{"transport", c.transport},
                     {"traddr", c.traddr},
                     {"trsvcid", c.trsvcid},
                     {"nr_io_queues", c.nr_io_queues},
                     {"queue_size", c.queue_size},
                     {"keep_alive_tmo", c.kato},
                     {"reconnect_delay", c.reconnect_delay},
                     {"ctrl_loss_tmo", c.ctrl_loss_tmo},
                     {"fast_io_fail_tmo", c.fast_io_fail_tmo}};
        // Only what was asked for, as libnvme writes them.
        if (!c.host_traddr.empty())
            port["host_traddr"] = c.host_traddr;
        if (c.tos >= 0)
            port["tos"] = c.tos;
        if (c.nr_write_queues > 0)
            port["nr_write_queues"] = c.nr_write_queues;
        if (c.nr_poll_queues > 0)
            port["nr_poll_queues"] = c.nr_poll_queues;
        subsys["ports"].push_back(std::move(port));
    }
    return {{"hosts", std::move(hosts)}};
}

bool serves(const ControllerInfo& c, const ConnectOptions& o)
{
    // Another source address is another path, as the kernel decides.
    return c.transport == o.transport && c.traddr == o.traddr &&
           static_cast<std::int64_t>(c.trsvcid) == o.trsvcid && c.subnqn == o.subnqn &&
           (!o.hostnqn || c.hostnqn == *o.hostnqn) &&
           c.host_traddr == o.host_traddr.value_or("");
}

std::vector<SessionAction> plan_apply(const std::vector<ConnectOptions>& sessions,
                                      const std::vector<ControllerInfo>& controllers)
{
    std::vector<SessionAction> plan;
    for (const ConnectOptions& o : sessions) {
        SessionAction a{o, std::nullopt};
        if (!o.duplicate_connect) {
            const auto it = std::find_if(controllers.begin(), controllers.end(),
                                         [&](const ControllerInfo& c) { return serves(c, o); });
            if (it != controllers.end())
                a.existing = it->name;
        }
        plan.push_back(std::move(a));
    }
    return plan;
}

}  // namespace rblk
