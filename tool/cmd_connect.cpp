// rblkctl connect: nvme-cli-like options mapped onto rblk::ConnectOptions.
#include "commands.hpp"
#include "format.hpp"

#include <rblk/error.hpp>
#include <rblk/host_identity.hpp>
#include <rblk/json.hpp>

#include <iostream>

namespace rblkctl {

void add_address_options(CLI::App* sub, rblk::ConnectOptions& o, bool traddr_required)
{
    sub->add_option("-t,--transport", o.transport, "Transport type")->capture_default_str();
    CLI::Option* traddr =
        sub->add_option("-a,--traddr", o.traddr,
                        "Target address: IPv4, IPv6 (fe80::1%eth0 if link-local) or host name");
    if (traddr_required)
        traddr->required();
    sub->add_option("-s,--trsvcid", o.trsvcid, "Target port")->capture_default_str();
}

void add_host_options(CLI::App* sub, rblk::ConnectOptions& o)
{
    sub->add_option("-q,--hostnqn", o.hostnqn, "Host NQN (default: /etc/nvme/hostnqn)");
    sub->add_option("-I,--hostid", o.hostid, "Host UUID (default: /etc/nvme/hostid)");
    sub->add_option("-w,--host-traddr", o.host_traddr,
                    "Source address to connect from (IPv4 or IPv6 literal)");
    sub->add_option("-T,--tos", o.tos, "RDMA type of service 0..255 (-1: the default)");
}

void add_io_options(CLI::App* sub, rblk::ConnectOptions& o)
{
    sub->add_option("-i,--nr-io-queues", o.nr_io_queues, "Number of I/O queues");
    sub->add_option("-W,--nr-write-queues", o.nr_write_queues,
                    "Number of write queues (the I/O queues then carry reads)");
    sub->add_option("-P,--nr-poll-queues", o.nr_poll_queues,
                    "Number of poll queues (polled I/O only: io_uring IOPOLL, RWF_HIPRI)");
    sub->add_option("-Q,--queue-size", o.queue_size, "I/O queue depth");
    sub->add_option("-k,--keep-alive-tmo", o.kato, "Keep-alive timeout, seconds (0: off)");
    sub->add_option("-c,--reconnect-delay", o.reconnect_delay, "Seconds between reconnects");
    sub->add_option("-l,--ctrl-loss-tmo", o.ctrl_loss_tmo,
                    "Seconds to keep reconnecting (-1: forever)");
    // nvme-cli spells this one -F, --fast_io_fail_tmo.
    sub->add_option("-F,--fast-io-fail-tmo,--fast_io_fail_tmo", o.fast_io_fail_tmo,
                    "Seconds after which I/O fails while reconnecting (-1: off)");
}

void add_json_options(CLI::App* sub, bool& json, const std::string& help)
{
    sub->add_flag("--json", json, help);
    sub->add_option_function<std::string>(
           "-o,--output-format", [&json](const std::string& f) { json = f == "json"; },
           "Output format: normal or json (nvme-cli's spelling of --json)")
        ->check(CLI::IsMember({"normal", "json"}));
}

void check_options(const rblk::ConnectOptions& o)
{
    try {
        o.validate();
    } catch (const rblk::InvalidOption& e) {
        throw CLI::ValidationError(e.what());
    }
}

rblk::HostIdentity host_identity()
{
    rblk::HostIdentity host = rblk::load_host_identity();
    if (host.warning)
        std::cerr << "rblkctl: warning: " << *host.warning << '\n';
    return host;
}

void add_connect(CLI::App& app, Request& req)
{
    rblk::ConnectOptions& o = req.connect;
    CLI::App* sub = app.add_subcommand("connect", "Connect to an NVMe-oF subsystem over RDMA");
    add_address_options(sub, o, true);
    sub->add_option("-n,--nqn", o.subnqn, "Subsystem NQN")->required();
    add_host_options(sub, o);
    add_io_options(sub, o);
    sub->add_flag("-D,--duplicate-connect", o.duplicate_connect,
                  "Allow a second identical connection");
    add_json_options(sub, req.json, "Print the controller as JSON");
    sub->callback([&req] {
        req.command = Command::Connect;
        check_options(req.connect);
    });
}

int run_connect(const Request& req, rblk::Client& client, std::ostream& out)
{
    rblk::ConnectOptions opts = req.connect;
    rblk::apply_host_identity(opts, host_identity());
    const rblk::ControllerInfo c = client.connect(opts);
    if (req.json)
        out << rblk::controller_json(c).dump(2) << '\n';
    else
        out << format_connected(c);
    return 0;
}

}  // namespace rblkctl
