#include "rblk/session_config.hpp"

#include "rblk/error.hpp"
#include "rblk/session_file.hpp"

#include "rblk/unique_fd.hpp"

extern "C" {  // libnvme 1.3 headers lack C++ linkage guards
#include <nvme/fabrics.h>
#include <nvme/tree.h>
}

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <string_view>
#include <system_error>
#include <utility>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

namespace rblk {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

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

// The sessions file writes trsvcid as an integer, libnvme as a string:
// both are taken.
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

ConnectOptions validated(const std::string& where, const ConnectOptions& o)
{
    try {
        o.validate();
    } catch (const InvalidOption& e) {
        throw InvalidOption(where + ": " + e.what());
    }
    return o;
}

// A port's options on top of its subsystem's NQN and its host's identity.
ConnectOptions parse_port(const Node& port, const ConnectOptions& base)
{
    port.object({"transport", "traddr", "trsvcid", "nr_io_queues", "nr_write_queues",
                 "nr_poll_queues", "queue_size", "keep_alive_tmo", "reconnect_delay",
                 "ctrl_loss_tmo", "fast_io_fail_tmo", "duplicate_connect", "host_traddr",
                 "tos", "dhchap_key", "dhchap_ctrl_key"});
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
    o.duplicate_connect = port.opt_bool("duplicate_connect").value_or(false);
    // libnvme's names; a port's key wins over its host's.
    if (port.has("dhchap_key"))
        o.dhchap_secret = port.string("dhchap_key");
    o.dhchap_ctrl_secret = port.opt_string("dhchap_ctrl_key");
    return validated(port.path, o);
}

// hosts -> subsystems -> ports of the sessions file, every level's keys named.
std::vector<ConnectOptions> parse_tree(const Node& hosts)
{
    std::vector<ConnectOptions> out;
    for (std::size_t h = 0; h < hosts.value.size(); ++h) {
        const Node host = hosts.at(h);
        host.object({"hostnqn", "hostid", "dhchap_key", "subsystems"});
        ConnectOptions base;
        base.hostnqn = host.opt_string("hostnqn");
        base.hostid = host.opt_string("hostid");
        base.dhchap_secret = host.opt_string("dhchap_key");
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

// ---- libnvme's config.json ----
//
// The sessions come from libnvme's own reader (nvme_read_config() and the
// tree it builds), so rblk takes the file as nvme-cli does: its merging of
// repeated hosts, subsystems and ports (a later value fills only what an
// earlier one left unset), hosts without a hostnqn skipped, json-c's type
// coercions. Beside it, one walk of the same bytes with nlohmann-json gives
// what the tree cannot: where each entry is (messages name the JSON path,
// sessions keep the file's order, which libnvme's lists reverse), what
// libnvme skips without a word, and the two values libnvme 1.3 writes but
// never reads back (ctrl_loss_tmo, tos: its reader keeps them only when the
// controller already differs from the default, which a new one never does).

// A line for the user, with its place in the file so that lines come out
// in the file's order.
struct Said {
    std::size_t order;
    std::string text;
};

// json_object_get_string(): a string as it is, anything else as its JSON.
template <typename Json>
std::optional<std::string> jsonc_string(const Json& v)
{
    if (v.is_null())
        return std::nullopt;
    return v.is_string() ? v.template get<std::string>() : v.dump();
}

// json_object_get_int(): numbers truncated, booleans 0/1, a string's
// leading integer (0 without one), anything else 0.
std::int64_t jsonc_int(const json& v)
{
    if (v.is_number_integer())
        return v.get<std::int64_t>();
    if (v.is_number_float())
        return static_cast<std::int64_t>(v.get<double>());
    if (v.is_boolean())
        return v.get<bool>();
    if (v.is_string())
        return std::strtoll(v.get_ref<const std::string&>().c_str(), nullptr, 10);
    return 0;
}

// json-c hands libnvme a key whose value is null as an absent one.
template <typename Json>
const Json* member(const Json& object, const char* key)
{
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

struct RawHost {
    std::string path;
    std::size_t order;
    std::optional<std::string> hostnqn, hostid;
};

struct RawPort {
    std::string path;
    std::size_t order;
    const json* value;
    const RawHost* host;
    std::string subnqn;
};

struct RawFile {
    std::vector<RawHost> hosts;  // reserved: ports point at them
    std::vector<RawPort> ports;
    std::vector<Said> said;
};

// The walk libnvme's json_parse_host() and the rest make, recording instead
// of building. Lists that are not lists are errors: libnvme would take
// json-c's length of a non-array (an assertion) rather than skip them.
RawFile index_raw(const json& doc)
{
    const Node root{doc, ""};
    if (!doc.is_array())
        root.fail(doc.is_object() && doc.contains("hosts")
                      ? "expected a list of hosts (an object of \"hosts\" is rblk's sessions "
                        "file: --format rblk)"
                      : "expected a list of hosts");
    RawFile raw;
    raw.hosts.reserve(doc.size());
    std::size_t order = 0;
    const auto skip = [&](const Node& n, const std::string& why) {
        raw.said.push_back({order++, n.path + ": " + why});
    };
    const auto list = [](const Node& parent, const char* key) -> std::optional<Node> {
        if (!member(parent.value, key))
            return std::nullopt;
        Node n = parent.at(key);
        if (!n.value.is_array())
            n.fail("expected an array");
        return n;
    };
    for (std::size_t h = 0; h < doc.size(); ++h) {
        const Node host = root.at(h);
        if (!host.value.is_object()) {
            skip(host, "not a host (an object) skipped, as libnvme skips it");
            continue;
        }
        const json* hostnqn = member(host.value, "hostnqn");
        if (!hostnqn) {
            skip(host, "host without a hostnqn skipped, as libnvme skips it");
            continue;
        }
        const json* hostid = member(host.value, "hostid");
        raw.hosts.push_back({host.path, order++, jsonc_string(*hostnqn),
                             hostid ? jsonc_string(*hostid) : std::nullopt});
        const RawHost* raw_host = &raw.hosts.back();
        const std::optional<Node> subsystems = list(host, "subsystems");
        for (std::size_t s = 0; subsystems && s < subsystems->value.size(); ++s) {
            const Node subsys = subsystems->at(s);
            const json* nqn = subsys.value.is_object() ? member(subsys.value, "nqn") : nullptr;
            if (!nqn) {
                skip(subsys, "subsystem without an nqn skipped, as libnvme skips it");
                continue;
            }
            const std::optional<Node> ports = list(subsys, "ports");
            for (std::size_t p = 0; ports && p < ports->value.size(); ++p) {
                const Node port = ports->at(p);
                if (!port.value.is_object() || !member(port.value, "transport")) {
                    skip(port, "port without a transport skipped: rblk connects over rdma only");
                    continue;
                }
                raw.ports.push_back(
                    {port.path, order++, &port.value, raw_host, *jsonc_string(*nqn)});
            }
        }
    }
    return raw;
}

// Equal as libnvme's lookups compare: a value absent on either side matches.
bool lookup_match(const char* tree, const std::optional<std::string>& raw, bool nocase = false)
{
    if (!tree || !raw)
        return true;
    return nocase ? ::strcasecmp(tree, raw->c_str()) == 0 : *raw == tree;
}

std::optional<std::string> raw_string(const RawPort& p, const char* key)
{
    const json* v = member(*p.value, key);
    return v ? jsonc_string(*v) : std::nullopt;
}

// Whether libnvme took host h from the file's entry r: the same hostnqn,
// and the same hostid unless r has none (libnvme's lookup takes it for any).
bool is_raw_host(const RawHost& r, nvme_host_t h)
{
    const char* hostid = nvme_host_get_hostid(h);
    return r.hostnqn == nvme_host_get_hostnqn(h) && (!r.hostid || (hostid && *r.hostid == hostid));
}

// The ports of the file that libnvme folded into controller c, file order.
// libnvme resolves a host_traddr that is a host name: when that is why
// none compares equal, the ports are matched without it.
std::vector<const RawPort*> raw_ports_of(const RawFile& raw, nvme_host_t h, nvme_subsystem_t s,
                                         nvme_ctrl_t c)
{
    std::vector<const RawPort*> out;
    for (const bool by_host_traddr : {true, false}) {
        for (const RawPort& p : raw.ports) {
            if (!is_raw_host(*p.host, h) || p.subnqn != nvme_subsystem_get_nqn(s) ||
                raw_string(p, "transport") != nvme_ctrl_get_transport(c) ||
                !lookup_match(nvme_ctrl_get_traddr(c), raw_string(p, "traddr"), true) ||
                (by_host_traddr &&
                 !lookup_match(nvme_ctrl_get_host_traddr(c), raw_string(p, "host_traddr"))) ||
                !lookup_match(nvme_ctrl_get_host_iface(c), raw_string(p, "host_iface")) ||
                !lookup_match(nvme_ctrl_get_trsvcid(c), raw_string(p, "trsvcid")))
                continue;
            out.push_back(&p);
        }
        if (!out.empty())
            break;
    }
    return out;
}

// Where libnvme's host h is in the file: the first entry it took h from.
Said raw_host_of(const RawFile& raw, nvme_host_t h)
{
    for (const RawHost& r : raw.hosts)
        if (is_raw_host(r, h))
            return {r.order, r.path};
    return {SIZE_MAX, std::string("host ") + nvme_host_get_hostnqn(h)};
}

// The first of the ports that gives `key`, as libnvme keeps the first value.
const json* first_value(const std::vector<const RawPort*>& ports, const char* key)
{
    for (const RawPort* p : ports)
        if (const json* v = member(*p->value, key))
            return v;
    return nullptr;
}

bool set_string(const char* s) { return s && *s; }

// Set as libnvme acts on it: a true flag, a non-empty string.
bool set_value(const json* v) { return v && *v != false && *v != ""; }

std::int64_t trsvcid_number(const char* trsvcid, const std::string& where)
{
    if (!trsvcid)
        return RBLK_DEFAULT_TRSVCID;
    const std::string_view s(trsvcid);
    if (s.empty() || s.size() > 5 || !std::all_of(s.begin(), s.end(), ::isdigit))
        throw InvalidOption(where + ".trsvcid: expected a port number");
    return std::stoll(std::string(s));
}

// libnvme's controller c as a session, or nullopt with the reason said.
std::optional<ConnectOptions> libnvme_session(nvme_host_t h, nvme_subsystem_t s, nvme_ctrl_t c,
                                              const std::vector<const RawPort*>& ports,
                                              const Said& at, std::vector<Said>& said)
{
    const std::string transport = nvme_ctrl_get_transport(c);
    const auto say = [&](const std::string& what) {
        said.push_back({at.order, at.text + ": " + what});
    };
    if (transport != "rdma") {
        say("transport '" + transport + "' skipped: rblk connects over rdma only");
        return std::nullopt;
    }
    ConnectOptions o;
    o.subnqn = nvme_subsystem_get_nqn(s);
    // libnvme 1.3 sets "discovery" for the key whatever its value.
    if (o.subnqn == RBLK_DISC_SUBNQN || nvme_ctrl_is_discovery_ctrl(c)) {
        say("discovery controller skipped: rblkctl connect-all --persistent keeps one");
        return std::nullopt;
    }
    o.transport = transport;
    o.hostnqn = nvme_host_get_hostnqn(h);
    if (const char* hostid = nvme_host_get_hostid(h))
        o.hostid = hostid;
    o.traddr = nvme_ctrl_get_traddr(c);
    o.trsvcid = trsvcid_number(nvme_ctrl_get_trsvcid(c), at.text);
    const nvme_fabrics_config& cfg = *nvme_ctrl_get_config(c);
    // libnvme's 0 is "not set": the kernel's default applies, as with nvme connect-all.
    const auto unless_zero = [](int v) {
        return v ? std::optional<std::int64_t>(v) : std::nullopt;
    };
    o.nr_io_queues = unless_zero(cfg.nr_io_queues);
    o.nr_write_queues = unless_zero(cfg.nr_write_queues);
    o.nr_poll_queues = unless_zero(cfg.nr_poll_queues);
    o.queue_size = unless_zero(cfg.queue_size);
    o.kato = unless_zero(cfg.keep_alive_tmo);
    o.reconnect_delay = unless_zero(cfg.reconnect_delay);
    o.fast_io_fail_tmo = unless_zero(cfg.fast_io_fail_tmo);
    if (cfg.host_traddr)
        o.host_traddr = cfg.host_traddr;
    o.duplicate_connect = cfg.duplicate_connect;
    // What libnvme 1.3 drops (see above), from the file, its defaults unset.
    if (const json* v = first_value(ports, "ctrl_loss_tmo"); v && jsonc_int(*v) != 600)
        o.ctrl_loss_tmo = jsonc_int(*v);
    if (const json* v = first_value(ports, "tos"); v && jsonc_int(*v) != -1)
        o.tos = jsonc_int(*v);

    // DH-HMAC-CHAP as libnvme's connect takes it: the port's host key, else
    // its host's.
    const char* host_key = nvme_ctrl_get_dhchap_host_key(c);
    if (!set_string(host_key))
        host_key = nvme_host_get_dhchap_key(h);
    if (set_string(host_key))
        o.dhchap_secret = host_key;
    if (const char* ctrl_key = nvme_ctrl_get_dhchap_key(c); set_string(ctrl_key))
        o.dhchap_ctrl_secret = ctrl_key;

    // What would change what the connect means but rblk cannot do: a word
    // each (the key's name, never its value).
    const auto unsupported = [&](const char* key, bool set) {
        if (set)
            say(std::string(key) + " is not supported by rblk: connecting without it");
    };
    // Newer libnvme's keys, which 1.3's tree does not hold.
    for (const char* key : {"keyring", "tls_key", "tls_key_identity"})
        unsupported(key, set_value(first_value(ports, key)));
    unsupported("tls", cfg.tls);
    unsupported("concat", set_value(first_value(ports, "concat")));
    unsupported("host_iface", set_string(nvme_ctrl_get_host_iface(c)));
    return validated(at.text, o);
}

// Closes what libnvme holds on every way out.
struct LibnvmeTree {
    nvme_root_t root;
    ~LibnvmeTree() { nvme_free_tree(root); }
};
// libnvme's log, in memory: its messages (a port it refuses) become warnings.
struct MemoryLog {
    char* text = nullptr;
    std::size_t size = 0;
    FILE* file = ::open_memstream(&text, &size);
    ~MemoryLog()
    {
        if (file)
            std::fclose(file);
        std::free(text);
    }
    // Its lines, once libnvme is done with it.
    std::vector<std::string> lines()
    {
        std::fclose(std::exchange(file, nullptr));
        std::vector<std::string> out;
        const std::string_view all(text ? text : "", text ? size : 0);
        for (std::size_t start = 0; start < all.size();) {
            const std::size_t end = std::min(all.find('\n', start), all.size());
            if (end > start)
                out.emplace_back(all.substr(start, end - start));
            start = end + 1;
        }
        return out;
    }
};

// `text`, a config.json, and `doc`, its JSON: the sessions libnvme reads
// from it. libnvme reads files only, so a memfd holds the bytes.
SessionsRead read_libnvme_config(const json& doc, const std::string& text)
{
    const RawFile raw = index_raw(doc);
    std::vector<Said> said = raw.said;

    const UniqueFd fd(::memfd_create("rblk-config-json", MFD_CLOEXEC));
    if (!fd)
        throw Error(errno, "cannot hand config.json to libnvme");
    write_all(fd.get(), text, "config.json for libnvme");
    const std::string path = "/proc/self/fd/" + std::to_string(fd.get());
    // libnvme takes a file it cannot open for an empty one: not so here.
    if (::access(path.c_str(), R_OK) < 0)
        throw Error(errno, "cannot hand config.json to libnvme: " + path);

    MemoryLog log;
    if (!log.file)
        throw Error(errno, "cannot read config.json with libnvme");
    std::vector<std::pair<std::size_t, ConnectOptions>> sessions;
    {
        const LibnvmeTree tree{nvme_create_root(log.file, LOG_ERR)};
        if (!tree.root)
            throw Error(errno, "cannot read config.json with libnvme");
        if (nvme_read_config(tree.root, path.c_str()) < 0)
            throw InvalidOption(std::string("libnvme cannot read it: ") +
                                std::generic_category().message(errno));
        nvme_host_t h;
        nvme_subsystem_t s;
        nvme_ctrl_t c;
        nvme_for_each_host(tree.root, h)
        {
            const Said host_at = raw_host_of(raw, h);
            nvme_for_each_subsystem(h, s)
            {
                nvme_subsystem_for_each_ctrl(s, c)
                {
                    const std::vector<const RawPort*> ports = raw_ports_of(raw, h, s, c);
                    const Said at = ports.empty()
                                        ? Said{SIZE_MAX, host_at.text + ", subsystem " +
                                                             nvme_subsystem_get_nqn(s)}
                                        : Said{ports.front()->order, ports.front()->path};
                    if (auto o = libnvme_session(h, s, c, ports, at, said))
                        sessions.emplace_back(at.order, std::move(*o));
                }
            }
        }
    }
    for (std::string& line : log.lines())
        said.push_back({SIZE_MAX, "libnvme: " + line});

    SessionsRead out;
    const auto by_order = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::stable_sort(sessions.begin(), sessions.end(), by_order);
    for (auto& [order, o] : sessions)
        out.sessions.push_back(std::move(o));
    std::stable_sort(said.begin(), said.end(),
                     [](const Said& a, const Said& b) { return a.order < b.order; });
    for (Said& w : said)
        out.warnings.push_back(std::move(w.text));
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
    if (c.dhchap_secret)
        port["dhchap_key"] = *c.dhchap_secret;
    if (c.dhchap_ctrl_secret)
        port["dhchap_ctrl_key"] = *c.dhchap_ctrl_secret;
    return port;
}

// As libnvme's json_update_port() writes a port, in its key order: a value
// at libnvme's default is left out.
ojson libnvme_port(const ControllerInfo& c)
{
    const SavedQueues q = saved_queues(c);
    ojson port = {{"transport", c.transport}, {"traddr", c.traddr}};
    if (!c.host_traddr.empty())
        port["host_traddr"] = c.host_traddr;
    port["trsvcid"] = std::to_string(c.trsvcid);
    if (c.dhchap_secret)
        port["dhchap_key"] = *c.dhchap_secret;
    if (c.dhchap_ctrl_secret)
        port["dhchap_ctrl_key"] = *c.dhchap_ctrl_secret;
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

// What save owns in a port of rblk's: the values a controller has (and
// its DH-HMAC-CHAP keys when it holds some: see merge_libnvme_config()).
// Every other key of that port (hdr_digest, persistent, ...) and every
// other entry of the file is nvme-cli's and stays as it is.
constexpr const char* kOwnedPortKeys[] = {
    "nr_io_queues",  "nr_write_queues", "nr_poll_queues",   "queue_size", "keep_alive_tmo",
    "reconnect_delay", "ctrl_loss_tmo", "fast_io_fail_tmo", "tos"};

// The file's port for controller c, as apply would read it back: rdma,
// the same address (any case), port (absent: 4420) and source address.
// host_iface is not compared: rblk connects such a port without it.
bool is_port_of(const ojson& port, const ControllerInfo& c)
{
    const auto str = [&](const char* key) {
        const ojson* v = member(port, key);
        return v ? jsonc_string(*v) : std::nullopt;
    };
    const std::optional<std::string> traddr = str("traddr");
    return port.is_object() && !member(port, "discovery") && str("transport") == c.transport &&
           traddr && ::strcasecmp(traddr->c_str(), c.traddr.c_str()) == 0 &&
           str("trsvcid").value_or(std::to_string(RBLK_DEFAULT_TRSVCID)) ==
               std::to_string(c.trsvcid) &&
           str("host_traddr").value_or("") == c.host_traddr;
}

// parent[key] as a list to add to (created when absent); another type is
// not rblk's to replace.
ojson& list_in(ojson& parent, const char* key, const std::string& path)
{
    if (!member(parent, key))
        parent[key] = ojson::array();
    ojson& list = parent[key];
    if (!list.is_array())
        throw InvalidOption(path + "." + key + ": expected an array");
    return list;
}

// The host entry for c: the same hostnqn and hostid, else the same hostnqn
// without a hostid (libnvme's lookup takes it for any), else a new one.
std::size_t host_of(ojson& config, const ControllerInfo& c)
{
    const auto find = [&](bool without_hostid) {
        for (std::size_t i = 0; i < config.size(); ++i) {
            const ojson* nqn = member(config[i], "hostnqn");
            const ojson* id = member(config[i], "hostid");
            if (nqn && jsonc_string(*nqn) == c.hostnqn &&
                (without_hostid ? !id : id && jsonc_string(*id) == c.hostid))
                return i;
        }
        return config.size();
    };
    std::size_t i = find(false);
    if (i == config.size())
        i = find(true);
    if (i == config.size()) {
        ojson host = {{"hostnqn", c.hostnqn}};
        if (!c.hostid.empty())
            host["hostid"] = c.hostid;
        config.push_back(std::move(host));
    }
    return i;
}

// Whether any key of the document holds a secret (its value, non-empty).
bool holds_secret(const ojson& j)
{
    if (j.is_array())
        return std::any_of(j.begin(), j.end(), holds_secret);
    if (!j.is_object())
        return false;
    for (const auto& [key, v] : j.items()) {
        if ((key == "dhchap_key" || key == "dhchap_ctrl_key" || key == "tls_key") &&
            v.is_string() && !v.get_ref<const std::string&>().empty())
            return true;
        if (holds_secret(v))
            return true;
    }
    return false;
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
    return parse_tree(root.array("hosts"));
}

SessionsRead parse_libnvme_config(const json& config)
{
    return read_libnvme_config(config, config.dump());
}

SessionsRead load_libnvme_config_file(const std::string& path)
{
    const std::string name = path == "-" ? "stdin" : path;
    const std::string text = read_text_file(path);
    const json doc = parse_json_text<json>(text, path);
    SessionsRead read;
    try {
        read = read_libnvme_config(doc, text);
    } catch (const InvalidOption& e) {
        throw InvalidOption(name + ": " + e.what());
    }
    for (std::string& w : read.warnings)
        w = name + ": " + w;
    return read;
}

json sessions_json(const std::vector<ControllerInfo>& controllers)
{
    return {{"hosts", hosts_json(controllers, sessions_port)}};
}

ojson merge_libnvme_config(ojson config, const std::vector<ControllerInfo>& controllers)
{
    if (!config.is_array())
        throw InvalidOption("expected a list of hosts");
    for (const ControllerInfo& c : controllers) {
        // Not sessions: connect-all --persistent (discovery.conf) brings them back.
        if (c.discovery)
            continue;
        const std::size_t h = host_of(config, c);
        const std::string host_path = "[" + std::to_string(h) + "]";
        ojson& subsystems = list_in(config[h], "subsystems", host_path);
        auto subsys = std::find_if(subsystems.begin(), subsystems.end(), [&](const ojson& s) {
            const ojson* nqn = member(s, "nqn");
            return nqn && jsonc_string(*nqn) == c.subnqn;
        });
        if (subsys == subsystems.end())
            subsys = subsystems.insert(subsystems.end(), ojson{{"nqn", c.subnqn}});
        ojson& ports = list_in(*subsys, "ports",
                               host_path + ".subsystems[" +
                                   std::to_string(subsys - subsystems.begin()) + "]");
        ojson fresh = libnvme_port(c);
        const auto port = std::find_if(ports.begin(), ports.end(),
                                       [&](const ojson& p) { return is_port_of(p, c); });
        if (port == ports.end()) {
            ports.push_back(std::move(fresh));
            continue;
        }
        for (const char* key : kOwnedPortKeys) {
            if (fresh.contains(key))
                (*port)[key] = fresh[key];
            else
                port->erase(key);
        }
        // The keys the controller holds; one it does not know (connected
        // without, or before secrets were reported) stays nvme-cli's.
        for (const char* key : {"dhchap_key", "dhchap_ctrl_key"})
            if (fresh.contains(key))
                (*port)[key] = fresh[key];
    }
    return config;
}

ojson libnvme_config_json(const std::vector<ControllerInfo>& controllers)
{
    return merge_libnvme_config(ojson::array(), controllers);
}

bool save_libnvme_config_file(const std::string& path,
                              const std::vector<ControllerInfo>& controllers)
{
    namespace fs = std::filesystem;
    // A link stays a link: the file it names is the one written.
    std::error_code ec;
    const std::string target = fs::is_symlink(path, ec) ? fs::canonical(path).string() : path;
    struct stat st {};
    const bool exists = ::stat(target.c_str(), &st) == 0;
    if (!exists && errno != ENOENT)
        throw std::system_error(errno, std::generic_category(), path);
    ojson config = ojson::array();
    if (exists)
        config = parse_json_text<ojson>(read_text_file(target), path);
    ojson merged;
    try {
        merged = merge_libnvme_config(config, controllers);
    } catch (const InvalidOption& e) {
        throw InvalidOption(path + ": " + e.what() + ": not libnvme's config.json, left as it is");
    }
    if (exists && merged == config)
        return false;  // nothing new: the file stays byte for byte
    // The file's mode, as nvme-cli's own rewrite keeps it, but never
    // readable by all once it holds a key.
    mode_t mode = exists ? st.st_mode & 07777 : 0644;
    if (holds_secret(merged))
        mode &= ~static_cast<mode_t>(S_IRWXO);
    write_file(target, merged.dump(2) + '\n', mode);
    // Its owner too, where we may (root may; anyone else owns what it writes).
    if (exists && (st.st_uid != ::geteuid() || st.st_gid != ::getegid()))
        (void)::chown(target.c_str(), st.st_uid, st.st_gid);
    return true;
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
