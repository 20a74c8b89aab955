// rblkctl connect --path bypass: a controller's namespaces (every active
// one, or --nsid's) as real block devices, one /dev/ublkbN each, served by
// a userspace server: the ublk daemon of librblk_bypass
// (rblk/bypass/ublk_daemon.hpp), which this file only starts and talks to.
//
// `connect --path bypass` starts it detached and prints its name and
// devices as `connect` prints a kernel controller's, or the server's one
// line of failure (no ublk, no RDMA device, wrong address or NQN). It then
// exits; the server lives on. The hidden `rblkctl ublk-server` runs the same
// server in the foreground for systemd (Type=notify;
// tool/dist/rblk-ublk@.service.in).
//
// list, show and disconnect find the servers through their state files
// (rblk/bypass/bypass_state.hpp); disconnect stops a server
// (bp::stop_server()).
#include "commands.hpp"
#include "format.hpp"

#include <rblk/bypass/bypass_state.hpp>
#include <rblk/bypass/ublk_daemon.hpp>
#include <rblk/error.hpp>
#include <rblk/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rblkctl {

namespace bp = rblk::bypass;
using bp::BypassNamespace;
using bp::BypassState;

namespace {

// What connect --path bypass and ublk-server ask of the server.
bp::DaemonOptions daemon_options(const Request& req)
{
    bp::DaemonOptions o;
    o.controller = bypass_controller_asked(req);
    o.resolve = resolve_bypass_controller;
    o.busy_poll = req.bypass_io.hipri;
    return o;
}

bool is_bypass_name(const std::string& n)
{
    return n.starts_with("bypass") || n.starts_with("ublkb") || n.starts_with("/dev/ublkb");
}

std::string format_bypass_show(const BypassState& s)
{
    std::string table = align_table({{"name:", s.name},
                        {"path:", "bypass (ublk server)"},
                        {"state:", s.state},
                        {"reason:", s.reason.empty() ? "-" : s.reason},
                        {"pid:", std::to_string(s.pid)},
                        {"transport:", s.transport},
                        {"traddr:", s.traddr},
                        {"trsvcid:", std::to_string(s.trsvcid)},
                        {"subnqn:", s.subnqn},
                        {"hostnqn:", s.hostnqn},
                        {"nr_io_queues:", std::to_string(s.nr_io_queues)},
                        {"queue_size:", std::to_string(s.queue_size)},
                        {"nsid:", s.nsid ? std::to_string(s.nsid) : "all"},
                        {"log:", s.log.empty() ? "-" : s.log}});
    std::vector<std::vector<std::string>> ns_rows = {{"NSID", "DEVICE", "SIZE_BYTES", "LBA_SIZE"}};
    for (const BypassNamespace& n : s.namespaces)
        ns_rows.push_back({std::to_string(n.nsid), n.device(), std::to_string(n.size_bytes),
                           std::to_string(n.lba_size)});
    return table + '\n' + align_table(ns_rows);
}

}  // namespace

void check_bypass_connect(const CLI::App& sub, const Request& req)
{
    for (const char* opt : {"--nr-write-queues", "--nr-poll-queues", "--duplicate-connect"})
        if (sub.get_option_no_throw(opt) && sub.count(opt))
            throw CLI::ValidationError(std::string(opt) + " is the kernel path's: not with --path bypass");
    if (!req.bypass_io.all_namespaces)
        check_nsid(req.bypass_io.nsid);
}

void add_ublk_server(CLI::App& app, Request& req)
{
    rblk::ConnectOptions& o = req.connect;
    CLI::App* sub = app.add_subcommand(
        "ublk-server",
        "Serve a controller's namespaces as /dev/ublkbN in the foreground (what connect --path "
        "bypass runs detached; for systemd)");
    sub->group("");  // hidden: connect --path bypass is the user's command
    add_address_options(sub, o, true);
    sub->add_option("-n,--nqn", o.subnqn, "Subsystem NQN")->required();
    add_host_options(sub, o);
    add_io_options(sub, o);
    sub->add_option("--nsid", req.bypass_io.nsid, "Serve this namespace only (default: every active one)");
    sub->add_flag("--hipri", req.bypass_io.hipri, "Busy-poll the queues instead of sleeping");
    sub->callback([&req, sub] {
        req.command = Command::UblkServer;
        req.connect_path = "bypass";
        req.bypass_io.all_namespaces = sub->count("--nsid") == 0;
        check_options(*sub, req.connect);
        check_bypass_connect(*sub, req);
    });
}

int run_ublk_server(const Request& req) { return bp::serve_foreground(daemon_options(req)); }

int run_connect_bypass(const Request& req, std::ostream& out)
{
    out.flush();  // the server's fork inherits what is buffered
    const bp::StartedServer started = bp::start_detached(daemon_options(req));
    if (req.json) {
        const auto s = bp::find_bypass(bp::load_bypass_states(), started.name);
        out << (s ? bp::bypass_list_json(*s) : nlohmann::json{{"name", started.name}, {"path", "bypass"}}).dump(2)
            << '\n';
    } else {
        out << started.name << '\n';
        for (const std::string& device : started.devices)
            out << device << '\n';
    }
    return 0;
}

std::optional<int> run_bypass_control(const Request& req, std::ostream& out)
{
    const std::vector<BypassState> servers = bp::load_bypass_states();
    const bool named = (req.command == Command::Show || req.command == Command::Disconnect) &&
                       !req.name.empty();
    if (named && !is_bypass_name(req.name))
        return std::nullopt;  // the kernel's
    if (named) {
        const auto s = bp::find_bypass(servers, req.name);
        if (!s)
            throw std::runtime_error("no bypass controller " + req.name);
        if (req.command == Command::Show) {
            if (req.json)
                out << bp::bypass_list_json(*s).dump(2) << '\n';
            else
                out << format_bypass_show(*s);
            return 0;
        }
        bp::stop_server(*s);
        if (req.json)
            out << nlohmann::json{{"disconnected", {s->name}}}.dump() << '\n';
        else
            out << s->name << '\n';
        return 0;
    }
    if (servers.empty())
        return std::nullopt;
    if (req.command == Command::Disconnect) {
        std::vector<std::string> names;
        for (const BypassState& s : servers)
            if (req.all || s.subnqn == req.nqn) {
                bp::stop_server(s);
                names.push_back(s.name);
            }
        try {
            rblk::Client client;
            const std::vector<std::string> more =
                req.all ? client.disconnect_all() : client.disconnect_nqn(req.nqn);
            names.insert(names.end(), more.begin(), more.end());
        } catch (const rblk::ModuleNotLoaded&) {
            if (names.empty())
                throw;
        }
        if (req.json)
            out << nlohmann::json{{"disconnected", names}}.dump() << '\n';
        else
            for (const std::string& n : names)
                out << n << '\n';
        return 0;
    }
    if (req.command != Command::List)
        return std::nullopt;
    std::vector<rblk::ControllerInfo> controllers;
    try {
        rblk::Client client;
        controllers = client.list();
    } catch (const rblk::ModuleNotLoaded&) {
        // The bypass servers need no module.
    }
    if (req.json) {
        nlohmann::json j = rblk::list_json(controllers);
        nlohmann::json b = nlohmann::json::array();
        for (const BypassState& s : servers)
            b.push_back(bp::bypass_list_json(s));
        j["bypass"] = std::move(b);
        out << j.dump(2) << '\n';
    } else {
        std::vector<std::vector<std::string>> rows;
        for (const BypassState& s : servers)
            rows.push_back(bypass_list_row(s));
        out << format_list(controllers, rows);
    }
    return 0;
}

}  // namespace rblkctl
