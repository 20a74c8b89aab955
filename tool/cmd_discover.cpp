// rblkctl discover / connect-all: a discovery controller's log (nvme-cli's
// output and JSON), and connecting what it lists, referrals followed.
#include "cmd_discover.hpp"
#include "cli.hpp"
#include "commands.hpp"
#include "format.hpp"

#include <rblk/discovery_plan.hpp>
#include <rblk/error.hpp>
#include <rblk/host_identity.hpp>
#include <rblk/json.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <stdexcept>

namespace rblkctl {
namespace {

void warn(const std::string& msg) { std::cerr << "rblkctl: warning: " << msg << '\n'; }

// The options discover and connect-all share; the discovery NQN is
// connect's -n/--nqn, defaulting to the well-known one.
void add_discovery_target(CLI::App* sub, rblk::ConnectOptions& o, Request& req, bool traddr_required)
{
    add_address_options(sub, o, traddr_required);
    sub->add_option("-n,--nqn", o.subnqn, "Discovery subsystem NQN (default: " RBLK_DISC_SUBNQN ")");
    add_host_options(sub, o);
    add_json_options(sub, req.json, "Print JSON (nvme-cli's shape)");
}

void check_discovery(const CLI::App& sub, const rblk::ConnectOptions& o)
{
    check_options(sub, rblk::discovery_connect_options(o, false));
}

// The discovery controllers of this connect-all: -a, else discovery.conf.
std::vector<rblk::ConnectOptions> connect_all_starts(const Request& req,
                                                     const rblk::ConnectOptions& defaults)
{
    if (!req.connect.traddr.empty())
        return {defaults};
    std::ifstream in(req.config);
    if (!in)
        throw std::runtime_error("connect-all: no --traddr, and cannot read " + req.config);
    std::vector<rblk::ConnectOptions> starts = discovery_conf_starts(in, defaults, req.config);
    if (starts.empty())
        throw std::runtime_error("connect-all: no --traddr, and " + req.config +
                                 " names no discovery controller");
    return starts;
}

rblk::ConnectOptions with_host_identity(const rblk::ConnectOptions& o)
{
    rblk::ConnectOptions out = o;
    rblk::apply_host_identity(out, host_identity());
    return out;
}

}  // namespace

DiscoverySession::DiscoverySession(rblk::Client& client, const rblk::ConnectOptions& disc,
                                   bool persistent,
                                   const std::vector<rblk::ControllerInfo>& existing)
    : client_(client)
{
    if (const auto name = rblk::find_persistent_discovery(existing, disc)) {
        name_ = *name;
        reused_ = true;
        return;
    }
    name_ = client.connect(rblk::discovery_connect_options(disc, persistent)).name;
    owned_ = true;
}

DiscoverySession::~DiscoverySession()
{
    if (!owned_)
        return;
    try {
        client_.disconnect(name_);
    } catch (const std::exception& e) {
        warn("disconnect " + name_ + ": " + e.what());
    }
}

rblk::DiscoveryLog DiscoverySession::read() const
{
    const rblk::UniqueFd fd = rblk::open_ctrl_device(name_);
    return rblk::read_discovery_log(fd.get());
}

std::vector<rblk::ConnectOptions> discovery_conf_starts(std::istream& in,
                                                        const rblk::ConnectOptions& defaults,
                                                        const std::string& where)
{
    std::vector<rblk::ConnectOptions> starts;
    for (const rblk::ConfLine& line : rblk::parse_discovery_conf(in)) {
        rblk::ConnectOptions o = defaults;
        Request ignored;
        CLI::App app("discovery.conf line", where);
        add_discovery_target(&app, o, ignored, true);
        add_io_options(&app, o);
        const std::string at = where + ":" + std::to_string(line.line) + ": ";
        try {
            std::vector<std::string> args(line.args.rbegin(), line.args.rend());  // CLI11 pops the back
            app.parse(args);
            o.discovery = true;
            check_options(app, o);
        } catch (const CLI::ParseError& e) {
            throw rblk::InvalidOption(at + usage_message(app, e));
        }
        starts.push_back(std::move(o));
    }
    return starts;
}

void add_discover(CLI::App& app, Request& req)
{
    rblk::ConnectOptions& o = req.connect;
    CLI::App* discover = app.add_subcommand(
        "discover", "Read a discovery controller's log (connects and disconnects it)");
    add_discovery_target(discover, o, req, true);
    discover->callback([&req, discover] {
        req.command = Command::Discover;
        if (req.connect.subnqn.empty())
            req.connect.subnqn = RBLK_DISC_SUBNQN;
        req.connect.discovery = true;
        check_discovery(*discover, req.connect);
    });

    CLI::App* all = app.add_subcommand(
        "connect-all", "Connect every NVMe subsystem that discovery controllers list");
    add_discovery_target(all, o, req, false);
    add_io_options(all, o);
    all->add_flag("--persistent", req.persistent,
                  "Keep the (first) discovery controller connected, with a keep-alive");
    req.config = rblk::kDefaultDiscoveryConf;
    all->add_option("--config", req.config,
                    "Discovery controllers when no --traddr is given, one a line")
        ->capture_default_str();
    all->callback([&req, all] {
        req.command = Command::ConnectAll;
        if (req.connect.subnqn.empty())
            req.connect.subnqn = RBLK_DISC_SUBNQN;
        req.connect.discovery = true;
        // The I/O options are checked here, not once per entry later; a
        // stand-in address when they come from discovery.conf.
        rblk::ConnectOptions o = req.connect;
        if (o.traddr.empty())
            o.traddr = "127.0.0.1";
        check_options(*all, o);
    });
}

int run_discover(const Request& req, rblk::Client& client, std::ostream& out)
{
    const rblk::ConnectOptions disc = with_host_identity(req.connect);
    const DiscoverySession session(client, disc, false, client.list());
    const rblk::DiscoveryLog log = session.read();
    for (const std::string& w : log.warnings)
        warn(w);
    if (req.json)
        out << rblk::discovery_log_json(log).dump(2) << '\n';
    else
        out << format_discovery_log(log);
    return 0;
}

ConnectOutcome connect_walk(const rblk::DiscoveryWalk& walk, rblk::Client& client)
{
    for (const std::string& w : walk.warnings)
        warn(w);
    ConnectOutcome outcome;
    for (const rblk::ConnectOptions& o : walk.connect) {
        try {
            outcome.connected.push_back(client.connect(o));
        } catch (const std::exception& e) {
            ++outcome.failed;
            warn("connect " + rblk::target_name(o) + ": " + e.what());
        }
    }
    return outcome;
}

int run_connect_all(const Request& req, rblk::Client& client, std::ostream& out)
{
    const std::vector<rblk::ConnectOptions> starts =
        connect_all_starts(req, with_host_identity(req.connect));
    const std::vector<rblk::ControllerInfo> existing = client.list();
    std::optional<std::string> persistent;
    // Sessions of transient discovery controllers end with each read;
    // the persistent one is the first start's, kept or reused.
    const rblk::DiscoveryWalk walk = rblk::walk_discovery(
        starts, existing, [&](const rblk::ConnectOptions& disc, int depth) {
            const bool keep = req.persistent && depth == 0 && !persistent;
            DiscoverySession session(client, disc, keep, existing);
            rblk::DiscoveryLog log = session.read();
            if (keep) {  // only once its log could be read
                session.keep();
                persistent = session.name();
            }
            return log;
        });
    const ConnectOutcome outcome = connect_walk(walk, client);
    if (req.json) {
        nlohmann::json connected = nlohmann::json::array();
        for (const rblk::ControllerInfo& c : outcome.connected)
            connected.push_back(rblk::controller_json(c));
        std::vector<std::string> already = walk.existing;
        std::sort(already.begin(), already.end());
        already.erase(std::unique(already.begin(), already.end()), already.end());
        nlohmann::json j = {{"connected", std::move(connected)}, {"existing", already}};
        if (persistent)
            j["persistent"] = *persistent;
        out << j.dump(2) << '\n';
    } else {
        for (const rblk::ControllerInfo& c : outcome.connected)
            out << format_connected(c);
        if (persistent)
            out << *persistent << " (persistent discovery controller)\n";
    }
    if (outcome.failed)
        throw std::runtime_error("connect-all: " + std::to_string(outcome.failed) + " of " +
                                 std::to_string(walk.connect.size()) + " connects failed");
    return 0;
}

}  // namespace rblkctl
