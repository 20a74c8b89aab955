// rblkctl monitor: controller state changes, asynchronous events and
// reservation notices as they happen, and the module being unloaded and loaded again (it keeps running
// across a reload). With --connect-new, a Discovery Log Change event makes
// it read that discovery controller's log and connect what is new.
#include "cmd_discover.hpp"
#include "commands.hpp"
#include "format.hpp"

#include <rblk/error.hpp>
#include <rblk/host_identity.hpp>
#include <rblk/json.hpp>

#include <iostream>

namespace rblkctl {
namespace {

// The discovery controller that sent an event, as a walk's start: its
// address and identity, the command line's options for what it lists.
rblk::ConnectOptions start_of(const rblk::ControllerInfo& c, const rblk::ConnectOptions& tmpl)
{
    rblk::ConnectOptions o = tmpl;
    o.transport = c.transport;
    o.traddr = c.traddr;
    o.trsvcid = c.trsvcid;
    o.subnqn = c.subnqn;
    o.hostnqn = c.hostnqn.empty() ? tmpl.hostnqn : c.hostnqn;
    o.host_traddr = c.host_traddr.empty() ? std::nullopt : std::optional(c.host_traddr);
    o.discovery = true;
    return o;
}

// Reads the log of the controller the event came from (through its own
// device: it stays connected) and connects what no controller serves yet.
void connect_new(const rblk::AenEvent& e, const Request& req, rblk::Client& client,
                 std::ostream& out)
{
    const std::vector<rblk::ControllerInfo> existing = client.list();
    rblk::ConnectOptions tmpl = req.connect;
    rblk::apply_host_identity(tmpl, host_identity());
    const rblk::ControllerInfo self = client.show(e.name);
    const rblk::DiscoveryWalk walk = rblk::walk_discovery(
        {start_of(self, tmpl)}, existing, [&](const rblk::ConnectOptions& disc, int depth) {
            if (depth == 0) {
                const rblk::UniqueFd fd = rblk::open_ctrl_device(e.name);
                return rblk::read_discovery_log(fd.get());
            }
            return DiscoverySession(client, disc, false, existing).read();
        });
    for (const rblk::ControllerInfo& c : connect_walk(walk, client).connected) {
        if (req.json) {
            nlohmann::json j = rblk::controller_json(c);
            j["event"] = "connected";
            j["discovery_controller"] = e.name;
            out << j.dump() << std::endl;
        } else {
            out << e.name << ": connected " << c.name << " (" << c.subnqn << ")" << std::endl;
            out << format_connected(c) << std::flush;
        }
    }
}

}  // namespace

void add_monitor(CLI::App& app, Request& req)
{
    CLI::App* sub = app.add_subcommand("monitor", "Print controller state changes and events until interrupted");
    add_json_options(sub, req.json, "One JSON object a line");
    sub->add_flag("--connect-new", req.connect_new,
                  "On a discovery log change, connect the subsystems it adds");
    // The options of the controllers --connect-new connects, as connect's.
    add_host_options(sub, req.connect);
    add_io_options(sub, req.connect);
    sub->callback([&req, sub] {
        req.command = Command::Monitor;
        rblk::ConnectOptions o = req.connect;  // only the options matter here
        o.traddr = o.host_traddr && o.host_traddr->find(':') != std::string::npos ? "::1"
                                                                                  : "127.0.0.1";
        o.subnqn = RBLK_DISC_SUBNQN;
        check_options(*sub, o);
    });
}

int run_monitor(const Request& req, rblk::Client& client, std::ostream& out)
{
    client.monitor(
        [&](const rblk::StateEvent& e) {
            out << (req.json ? rblk::event_json(e).dump() : format_event(e)) << std::endl;
            return static_cast<bool>(out);  // stop when stdout is gone
        },
        [&](const rblk::FamilyNotice& n) {
            out << (req.json ? rblk::module_event_json(n).dump() : format_module_event(n))
                << std::endl;
            return static_cast<bool>(out);
        },
        [&](const rblk::AenEvent& e) {
            out << (req.json ? rblk::aen_json(e).dump() : format_aen(e)) << std::endl;
            if (req.connect_new && rblk::is_discovery_change(e.result)) {
                try {
                    connect_new(e, req, client, out);
                } catch (const std::exception& err) {
                    // The monitor goes on: the next change is read afresh.
                    std::cerr << "rblkctl: " << e.name << ": connect-new: " << err.what() << '\n';
                }
            }
            return static_cast<bool>(out);
        },
        [&](const rblk::ResvNoticeEvent& e) {
            out << (req.json ? rblk::resv_notice_json(e).dump() : format_resv_notice(e))
                << std::endl;
            return static_cast<bool>(out);
        });
    return 0;
}

}  // namespace rblkctl
