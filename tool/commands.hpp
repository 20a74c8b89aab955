// One add_*/run_* pair per subcommand family (one .cpp each): add_* declares
// the subcommand's options on the app, run_* carries out a parsed Request.
#pragma once

#include "request.hpp"

#include <rblk/bypass/controller.hpp>
#include <rblk/client.hpp>
#include <rblk/host_identity.hpp>

#include <CLI/CLI.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace rblkctl {

void add_connect(CLI::App& app, Request& req);     // cmd_connect.cpp
void add_disconnect(CLI::App& app, Request& req);  // cmd_disconnect.cpp
void add_list(CLI::App& app, Request& req);        // cmd_list.cpp: list, show, list-subsys
void add_iopolicy(CLI::App& app, Request& req);    // cmd_list.cpp: set-iopolicy
void add_stats(CLI::App& app, Request& req);       // cmd_stats.cpp
void add_monitor(CLI::App& app, Request& req);     // cmd_monitor.cpp
void add_session(CLI::App& app, Request& req);     // cmd_session.cpp: apply, save
void add_discover(CLI::App& app, Request& req);    // cmd_discover.cpp: discover, connect-all
void add_bypass_io(CLI::App& app, Request& req);   // cmd_bypass_io.cpp: read, write
void add_ublk_server(CLI::App& app, Request& req); // cmd_ublk.cpp: the hidden ublk-server
void add_keys(CLI::App& app, Request& req);        // cmd_keys.cpp: gen-dhchap-key

// The option groups connect shares with discover, connect-all and monitor
// (cmd_connect.cpp): one definition each, so the spellings cannot drift.
void add_address_options(CLI::App* sub, rblk::ConnectOptions& o, bool traddr_required);  // -t -a -s
void add_host_options(CLI::App* sub, rblk::ConnectOptions& o);  // -q -I -w -T
// -i -W -P (unless !queue_counts: read/write use one queue) -Q -k -c -l --fast-io-fail-tmo
void add_io_options(CLI::App* sub, rblk::ConnectOptions& o, bool queue_counts = true);
// --json and nvme-cli's -o/--output-format normal|json, setting `json`.
void add_json_options(CLI::App* sub, bool& json, const std::string& help);
// The NAME positional of show, stats and disconnect, into req.name: a
// controller (rblk0), one of its disks (rblk0n1, rblk0n1p2) or their /dev
// path, always stored as the controller's name (cmd_list.cpp).
CLI::Option* add_name_argument(CLI::App* sub, Request& req);
// controller_name()'s rules: "rblk0" for "rblk0", "rblk0n1", "/dev/rblk0n1"
// (a symlink under /dev, e.g. /dev/disk/by-id/..., is followed first), and
// for a hidden path disk "rblk2c0n1" (subsystem 2's path through rblk0);
// nullopt for anything else. A multipath head rblkSnN names rblkS, the
// subsystem's first controller, which may have gone since.
std::optional<std::string> controller_name(const std::string& given);
// An option whose value is a byte count, SIZE in help and the manual
// (size_option.cpp): parsed by rblk::bench::parse_size_option, as bench's
// --bs, --size, --offset and --io-limit are, a bad value refused as a usage
// error in its words. `name` is the one long name ("--offset"). The first
// shows `into` as its default.
CLI::Option* add_size_option(CLI::App* sub, const std::string& name, std::uint64_t& into,
                             const std::string& help);
CLI::Option* add_size_option(CLI::App* sub, const std::string& name,
                             std::optional<std::uint64_t>& into, const std::string& help);
// What SIZE takes, one paragraph; note_sizes() puts it at the head of the
// footer (help and the manual page) of a command with SIZE options.
extern const char* const kSizeHelp;
void note_sizes(CLI::App* sub);
// o.validate(), its message as a CLI11 ValidationError in_option_spelling()
// of `sub`, the (sub)command whose options filled `o`.
void check_options(const CLI::App& sub, const rblk::ConnectOptions& o);
// A validate() message in the terms of the command line: each field that is
// an option of `sub` spelled as the option ("subnqn" as --nqn), and its
// number as typed rather than as CLI11 converted it:
// "--nr-io-queues 999999999999999999999 is out of range (1..128)".
std::string in_option_spelling(const std::string& message, const CLI::App& sub);
// --nsid's range (CLI11 ValidationError), and the bypass controller of
// req.connect and req.bypass_io.nsid as asked, then as it connects: host
// identity applied, address resolved (cmd_bypass_io.cpp; read, write,
// connect --path bypass, whose server resolves it itself).
void check_nsid(std::int64_t nsid);
rblk::bypass::ControllerOptions bypass_controller_asked(const Request& req);
rblk::bypass::ControllerOptions resolve_bypass_controller(const rblk::bypass::ControllerOptions& asked);
// connect --path bypass and ublk-server: what the kernel path's connect
// options cannot mean there refused (-W, -P, -D), --nsid checked (cmd_ublk.cpp).
void check_bypass_connect(const CLI::App& sub, const Request& req);
// rblk::load_host_identity() of /etc/nvme, its warning (a generated
// identity that could not be stored) printed on stderr.
rblk::HostIdentity host_identity();

int run_connect(const Request& req, rblk::Client& client, std::ostream& out);
int run_disconnect(const Request& req, rblk::Client& client, std::ostream& out);
int run_list(const Request& req, rblk::Client& client, std::ostream& out);
int run_show(const Request& req, rblk::Client& client, std::ostream& out);
int run_list_subsys(const Request& req, rblk::Client& client, std::ostream& out);
int run_set_iopolicy(const Request& req, rblk::Client& client, std::ostream& out);
// What set-iopolicy sends for the subsystem req.subsystem names, given the
// controllers there are: a controller by name; rblk-subsysS as one of its
// controllers (throws InvalidOption when it has none); an NQN as typed,
// with -q's host NQN (none: the kernel sets the subsystems of that NQN of
// every host NQN).
rblk::SubsystemRef subsystem_ref(const Request& req,
                                 const std::vector<rblk::ControllerInfo>& controllers);
int run_stats(const Request& req, rblk::Client& client, std::ostream& out);
int run_monitor(const Request& req, rblk::Client& client, std::ostream& out);
int run_discover(const Request& req, rblk::Client& client, std::ostream& out);
int run_connect_all(const Request& req, rblk::Client& client, std::ostream& out);
// The discovery controllers of a discovery.conf (cmd_discover.cpp): each
// line's options parsed as connect-all's over a copy of `defaults`, so the
// command line's host and I/O options apply where a line says nothing.
// Throws InvalidOption "FILE:LINE: reason".
std::vector<rblk::ConnectOptions> discovery_conf_starts(std::istream& in,
                                                        const rblk::ConnectOptions& defaults,
                                                        const std::string& where);
// The sessions of req.file, host defaults applied; read before the kernel
// is asked anything, so a bad file is reported as such.
std::vector<rblk::ConnectOptions> load_sessions(const Request& req);
int run_apply(const Request& req, const std::vector<rblk::ConnectOptions>& sessions,
              rblk::Client& client, std::ostream& out);
int run_save(const Request& req, rblk::Client& client, std::ostream& out);
// The commands that need no kernel: cmd_bench.cpp, completion.cpp,
// cmd_keys.cpp, cmd_bypass_io.cpp (the bypass path talks to the target itself).
int run_bench(const Request& req, std::ostream& out);
int run_bypass_io(const Request& req, std::ostream& out);
int run_completion(const Request& req, std::ostream& out);
int run_gen_dhchap_key(const Request& req, std::ostream& out);
// cmd_ublk.cpp, over the ublk daemon (rblk/bypass/ublk_daemon.hpp):
// connect --path bypass (a detached ublk server, its devices printed once
// it is ready), the server in the foreground (ublk-server, for systemd),
// and list, show, disconnect where bypass servers are concerned:
// nullopt when the request is the kernel's alone (no bypass server
// exists, or a kernel controller is named), else the exit status.
int run_connect_bypass(const Request& req, std::ostream& out);
int run_ublk_server(const Request& req);
std::optional<int> run_bypass_control(const Request& req, std::ostream& out);

// The one dispatch: every subcommand's add_* fills the Request, run()
// carries it out, opening the netlink client only for those that talk to
// the kernel.
int run(const Request& req, std::ostream& out);

}  // namespace rblkctl
