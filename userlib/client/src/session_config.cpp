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

    void require_object() const
    {
        if (!value.is_object())
            fail("expected an object");
    }

    const json& object(std::initializer_list<const char*> allowed) const
    {
        require_object();
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

    std::optional<bool> opt_bool(const char* key) const
    {
        if (!has(key))
            return std::nullopt;
        Node n = at(key);
        if (!n.value.is_boolean())
            n.fail("expected true or false");
        return n.value.get<bool>();
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

// The values both files give a port. libnvme leaves a value at its
// default out and reads 0 (tos -1) as "not set", so from its file those
// are unset here and the kernel's default applies, as with nvme connect-all.
void read_port_values(const Node& port, ConnectOptions& o, bool libnvme)
{
    const auto number = [&](const char* key, std::int64_t unset) {
        std::optional<std::int64_t> v = port.opt_integer(key);
        return libnvme && v == unset ? std::nullopt : v;
    };
    o.traddr = port.string("traddr");
    o.trsvcid = port_number(port);
    o.nr_io_queues = number("nr_io_queues", 0);
    o.nr_write_queues = port.opt_integer("nr_write_queues");  // 0: none, in both
    o.nr_poll_queues = port.opt_integer("nr_poll_queues");
    o.queue_size = number("queue_size", 0);
    o.kato = number("keep_alive_tmo", 0);
    o.reconnect_delay = number("reconnect_delay", 0);
    o.ctrl_loss_tmo = port.opt_integer("ctrl_loss_tmo");
    o.fast_io_fail_tmo = number("fast_io_fail_tmo", 0);
    o.host_traddr = port.opt_string("host_traddr");
    o.tos = number("tos", -1);
    o.duplicate_connect = port.opt_bool("duplicate_connect").value_or(false);
}

ConnectOptions validated(const Node& port, const ConnectOptions& o)
{
    try {
        o.validate();
    } catch (const InvalidOption& e) {
        port.fail(e.what());
    }
    return o;
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
    read_port_values(port, o, false);
    return validated(port, o);
}

// libnvme's keys that change what a connect means and that rblk cannot
// do: connecting without them deserves a word.
void warn_unsupported(const Node& node, std::initializer_list<const char*> keys,
                      std::vector<std::string>& warnings)
{
    for (const char* key : keys) {
        if (!node.has(key))
            continue;
        // Set as libnvme acts on it: a true flag, a non-empty string.
        const json& v = node.value.at(key);
        if (v.is_null() || v == false || v == "")
            continue;
        warnings.push_back(node.path + ": " + key +
                           " is not supported by rblk: connecting without it");
    }
}

// A config.json port as a session, or nullopt (with its warning) for one
// rblk does not make.
std::optional<ConnectOptions> parse_libnvme_port(const Node& port, const ConnectOptions& base,
                                                 std::vector<std::string>& warnings)
{
    port.require_object();
    const std::string transport = port.opt_string("transport").value_or("");
    if (transport != "rdma") {
        warnings.push_back(port.path + ": " +
                           (transport.empty() ? "port without a transport"
                                              : "transport '" + transport + "'") +
                           " skipped: rblk connects over rdma only");
        return std::nullopt;
    }
    if (base.subnqn == RBLK_DISC_SUBNQN || port.opt_bool("discovery").value_or(false)) {
        warnings.push_back(port.path +
                           ": discovery controller skipped: rblkctl connect-all --persistent "
                           "keeps one");
        return std::nullopt;
    }
    ConnectOptions o = base;
    o.transport = transport;
    read_port_values(port, o, true);
    warn_unsupported(port,
                     {"dhchap_key", "dhchap_ctrl_key", "keyring", "tls_key", "tls_key_identity",
                      "tls", "concat", "host_iface"},
                     warnings);
    return validated(port, o);
}

// hosts -> subsystems -> ports, in either file. The sessions file names
// every level's keys and wants each list; libnvme's takes any key and,
// as libnvme does, a host without subsystems or a subsystem without ports.
SessionsRead parse_tree(const Node& hosts, bool libnvme)
{
    SessionsRead out;
    for (std::size_t h = 0; h < hosts.value.size(); ++h) {
        const Node host = hosts.at(h);
        if (libnvme) {
            host.require_object();
            warn_unsupported(host, {"dhchap_key"}, out.warnings);
        } else {
            host.object({"hostnqn", "hostid", "subsystems"});
        }
        ConnectOptions base;
        base.hostnqn = host.opt_string("hostnqn");
        base.hostid = host.opt_string("hostid");
        if (libnvme && !host.has("subsystems"))
            continue;
        const Node subsystems = host.array("subsystems");
        for (std::size_t s = 0; s < subsystems.value.size(); ++s) {
            const Node subsys = subsystems.at(s);
            if (libnvme)
                subsys.require_object();
            else
                subsys.object({"nqn", "ports"});
            base.subnqn = subsys.string("nqn");
            if (libnvme && !subsys.has("ports"))
                continue;
            const Node ports = subsys.array("ports");
            for (std::size_t p = 0; p < ports.value.size(); ++p) {
                if (!libnvme)
                    out.sessions.push_back(parse_port(ports.at(p), base));
                else if (auto o = parse_libnvme_port(ports.at(p), base, out.warnings))
                    out.sessions.push_back(std::move(*o));
            }
        }
    }
    return out;
}

// read_json_file, then `parse`; its messages start with the file's name.
template <typename Parse>
auto load_file(const std::string& path, Parse parse)
{
    const json config = read_json_file(path);
    const std::string name = path == "-" ? "stdin" : path;
    try {
        return parse(config);
    } catch (const InvalidOption& e) {
        throw InvalidOption(name + ": " + e.what());
    }
}

// Hosts -> subsystems -> ports of the controllers that are sessions,
// hosts and subsystems in the order first met; port_of writes each port.
template <typename PortOf>
json hosts_json(const std::vector<ControllerInfo>& controllers, PortOf port_of)
{
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
        subsys["ports"].push_back(port_of(c));
    }
    return hosts;
}

json sessions_port(const ControllerInfo& c)
{
    const SavedQueues q = saved_queues(c);
    json port = {{"transport", c.transport},
                 {"traddr", c.traddr},
                 {"trsvcid", c.trsvcid},
                 {"nr_io_queues", q.nr_io_queues},
                 {"queue_size", q.queue_size},
                 {"keep_alive_tmo", c.kato},
                 {"reconnect_delay", c.reconnect_delay},
                 {"ctrl_loss_tmo", c.ctrl_loss_tmo},
                 {"fast_io_fail_tmo", c.fast_io_fail_tmo}};
    // Only what was asked for, as libnvme writes them.
    if (!c.host_traddr.empty())
        port["host_traddr"] = c.host_traddr;
    if (c.tos >= 0)
        port["tos"] = c.tos;
    if (q.nr_write_queues > 0)
        port["nr_write_queues"] = q.nr_write_queues;
    if (q.nr_poll_queues > 0)
        port["nr_poll_queues"] = q.nr_poll_queues;
    return port;
}

// As libnvme's json_update_port(): a value at libnvme's default is left out.
json libnvme_port(const ControllerInfo& c)
{
    const SavedQueues q = saved_queues(c);
    json port = {{"transport", c.transport},
                 {"traddr", c.traddr},
                 {"trsvcid", std::to_string(c.trsvcid)}};
    if (!c.host_traddr.empty())
        port["host_traddr"] = c.host_traddr;
    const auto put = [&](const char* key, std::int64_t v, std::int64_t unset) {
        if (v != unset)
            port[key] = v;
    };
    put("nr_io_queues", q.nr_io_queues, 0);
    put("nr_write_queues", q.nr_write_queues, 0);
    put("nr_poll_queues", q.nr_poll_queues, 0);
    put("queue_size", q.queue_size, 0);
    // 0 (off) cannot be said: libnvme reads it as "not set".
    put("keep_alive_tmo", c.kato, 0);
    put("reconnect_delay", c.reconnect_delay, 0);
    put("ctrl_loss_tmo", c.ctrl_loss_tmo, RBLK_DEFAULT_CTRL_LOSS_TMO);  // libnvme's default too
    // -1 (off) is the default; 0 would read back as "not set" too.
    if (c.fast_io_fail_tmo > 0)
        port["fast_io_fail_tmo"] = c.fast_io_fail_tmo;
    put("tos", c.tos, -1);
    return port;
}

}  // namespace

std::vector<ConnectOptions> load_sessions_file(const std::string& path)
{
    return load_file(path, parse_sessions);
}

std::vector<ConnectOptions> parse_sessions(const json& config)
{
    const Node root{config, ""};
    if (config.is_array())
        root.fail("expected an object (a list of hosts is libnvme's config.json: "
                  "--format libnvme)");
    root.object({"hosts"});
    return parse_tree(root.array("hosts"), false).sessions;
}

SessionsRead parse_libnvme_config(const json& config)
{
    const Node root{config, ""};
    if (!config.is_array())
        root.fail(config.is_object() && config.contains("hosts")
                      ? "expected a list of hosts (an object of \"hosts\" is rblk's sessions "
                        "file: --format rblk)"
                      : "expected a list of hosts");
    return parse_tree(root, true);
}

SessionsRead load_libnvme_config_file(const std::string& path)
{
    SessionsRead read = load_file(path, parse_libnvme_config);
    for (std::string& w : read.warnings)
        w = (path == "-" ? "stdin" : path) + ": " + w;
    return read;
}

json sessions_json(const std::vector<ControllerInfo>& controllers)
{
    return {{"hosts", hosts_json(controllers, sessions_port)}};
}

json libnvme_config_json(const std::vector<ControllerInfo>& controllers)
{
    return hosts_json(controllers, libnvme_port);
}

SavedQueues saved_queues(const ControllerInfo& c)
{
    const QueueRequest& r = c.requested;
    return {r.nr_io_queues.value_or(c.nr_io_queues), r.nr_write_queues.value_or(c.nr_write_queues),
            r.nr_poll_queues.value_or(c.nr_poll_queues), r.queue_size.value_or(c.queue_size)};
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
