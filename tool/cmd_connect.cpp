// rblkctl connect: nvme-cli-like options mapped onto rblk::ConnectOptions.
#include "commands.hpp"
#include "format.hpp"

#include <rblk/error.hpp>
#include <rblk/host_identity.hpp>
#include <rblk/json.hpp>

#include <algorithm>
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

namespace {

// Shown in --help as "INT=128": the kernel's default for an option not
// given (uapi/rblk.h), without making CLI11 send it (the option stays unset).
std::string kernel_default(std::int64_t v) { return std::to_string(v); }

}  // namespace

void add_host_options(CLI::App* sub, rblk::ConnectOptions& o)
{
    sub->add_option("-q,--hostnqn", o.hostnqn, "Host NQN (default: /etc/nvme/hostnqn)");
    sub->add_option("-I,--hostid", o.hostid, "Host UUID (default: /etc/nvme/hostid)");
    sub->add_option("-w,--host-traddr", o.host_traddr,
                    "Source address to connect from (IPv4 or IPv6 literal; default: the "
                    "route's)");
    sub->add_option("-T,--tos", o.tos, "RDMA type of service 0..255 (-1: the default)")
        ->default_str(kernel_default(-1));
    // nvme-cli's spellings. On the command line a secret shows in ps, as
    // nvme-cli's does.
    sub->add_option("-S,--dhchap-secret", o.dhchap_secret,
                    "DH-HMAC-CHAP: the host's secret, DHHC-1:NN:<base64>: (nvme gen-dhchap-key)");
    sub->add_option("-C,--dhchap-ctrl-secret", o.dhchap_ctrl_secret,
                    "DH-HMAC-CHAP: the controller's secret, to authenticate it too (needs "
                    "--dhchap-secret)");
}

void add_io_options(CLI::App* sub, rblk::ConnectOptions& o, bool queue_counts)
{
    if (queue_counts) {
        sub->add_option("-i,--nr-io-queues", o.nr_io_queues, "Number of I/O queues")
            ->default_str("one per CPU");
        sub->add_option("-W,--nr-write-queues", o.nr_write_queues,
                        "Number of write queues (the I/O queues then carry reads)")
            ->default_str(kernel_default(0));
        sub->add_option("-P,--nr-poll-queues", o.nr_poll_queues,
                        "Number of poll queues (polled I/O only: io_uring IOPOLL, RWF_HIPRI)")
            ->default_str(kernel_default(0));
    }
    sub->add_option("-Q,--queue-size", o.queue_size, "I/O queue depth")
        ->default_str(kernel_default(RBLK_DEFAULT_QUEUE_SIZE));
    sub->add_option("-k,--keep-alive-tmo", o.kato, "Keep-alive timeout, seconds (0: off)")
        ->default_str(kernel_default(RBLK_DEFAULT_KATO));
    sub->add_option("-c,--reconnect-delay", o.reconnect_delay, "Seconds between reconnects")
        ->default_str(kernel_default(RBLK_DEFAULT_RECONNECT_DELAY));
    sub->add_option("-l,--ctrl-loss-tmo", o.ctrl_loss_tmo,
                    "Seconds to keep reconnecting (-1: forever)")
        ->default_str(kernel_default(RBLK_DEFAULT_CTRL_LOSS_TMO));
    // nvme-cli spells this one -F, --fast_io_fail_tmo.
    sub->add_option("-F,--fast-io-fail-tmo,--fast_io_fail_tmo", o.fast_io_fail_tmo,
                    "Seconds after which I/O fails while reconnecting (-1: off)")
        ->default_str(kernel_default(RBLK_DEFAULT_FAST_IO_FAIL_TMO));
}

void add_json_options(CLI::App* sub, bool& json, const std::string& help)
{
    sub->add_flag("--json", json, help);
    sub->add_option_function<std::string>(
           "-o,--output-format", [&json](const std::string& f) { json = f == "json"; },
           "Output format: normal or json (nvme-cli's spelling of --json)")
        ->check(CLI::IsMember({"normal", "json"}));
}

namespace {

bool is_integer(const std::string& word)
{
    const std::size_t digits = word.starts_with('-') ? 1 : 0;
    return word.size() > digits &&
           word.find_first_not_of("0123456789", digits) == std::string::npos;
}

}  // namespace

std::string in_option_spelling(const std::string& message, const CLI::App& sub)
{
    // validate() names the fields as the options are spelled, but for the
    // subsystem NQN (-n, --nqn).
    const auto option_of = [&sub](const std::string& field) -> const CLI::Option* {
        const std::string lname = field == "subnqn" ? "nqn" : field;
        for (const CLI::Option* opt : sub.get_options())
            for (const std::string& l : opt->get_lnames())
                if (l == lname)
                    return opt;
        return nullptr;
    };
    // Words between spaces; a quoted value ('bad host') is the user's text
    // and left alone, whatever it says.
    std::vector<std::string> words;
    for (std::size_t pos = 0, end; pos <= message.size(); pos = end + 1) {
        end = std::min(message.find(' ', pos), message.size());
        words.push_back(message.substr(pos, end - pos));
    }
    bool quoted = false;
    for (std::size_t i = 0; i < words.size(); ++i) {
        std::string& w = words[i];
        if (quoted) {  // until the word with the closing quote
            quoted = w.find('\'') == std::string::npos;
            continue;
        }
        if (w.starts_with('\'')) {
            quoted = w.find('\'', 1) == std::string::npos;
            continue;
        }
        const CLI::Option* opt = option_of(w);
        if (!opt)
            continue;
        w = "--" + opt->get_lnames().front();
        // The number as typed: CLI11 clamps what int64 cannot hold
        // (999999999999999999999 arrives as 9223372036854775807).
        if (i + 1 < words.size() && is_integer(words[i + 1]) && opt->count() > 0)
            words[i + 1] = opt->results().back();
    }
    std::string out;
    for (const std::string& w : words)
        out += (out.empty() ? "" : " ") + w;
    return out;
}

void check_options(const CLI::App& sub, const rblk::ConnectOptions& o)
{
    try {
        o.validate();
    } catch (const rblk::InvalidOption& e) {
        throw CLI::ValidationError(in_option_spelling(e.what(), sub));
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
    sub->add_option("--path", req.connect_path,
                    "Data path: kernel (rblk.ko's /dev/rblkCnN) or bypass (a userspace server, "
                    "rblkctl itself the initiator, serving each namespace as /dev/ublkbN "
                    "through the kernel's ublk driver)")
        ->capture_default_str()
        ->check(CLI::IsMember({"kernel", "bypass"}));
    sub->add_option("--nsid", req.bypass_io.nsid,
                    "--path bypass: serve this namespace only (default: every active one)");
    sub->add_flag("--hipri", req.bypass_io.hipri,
                  "--path bypass: the server busy-polls its queues instead of sleeping");
    add_json_options(sub, req.json, "Print the controller as JSON");
    sub->callback([&req, sub] {
        req.command = req.connect_path == "bypass" ? Command::ConnectBypass : Command::Connect;
        check_options(*sub, req.connect);
        if (req.command == Command::ConnectBypass) {
            req.bypass_io.all_namespaces = sub->count("--nsid") == 0;
            check_bypass_connect(*sub, req);
        }
        else if (sub->count("--nsid") || sub->count("--hipri"))
            throw CLI::ValidationError("--nsid and --hipri go with --path bypass");
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
