#include "commands.hpp"

namespace rblkctl {

int run(const Request& req, std::ostream& out)
{
    switch (req.command) {
    case Command::None: return 0;
    case Command::Bench: return run_bench(req, out);
    case Command::Completion: return run_completion(req, out);
    case Command::GenDhchapKey: return run_gen_dhchap_key(req, out);
    case Command::Read:
    case Command::Write: return run_bypass_io(req, out);
    case Command::ConnectBypass: return run_connect_bypass(req, out);
    case Command::UblkServer: return run_ublk_server(req);
    case Command::List:
    case Command::Show:
    case Command::Disconnect:
        if (const std::optional<int> rc = run_bypass_control(req, out))
            return *rc;
        break;
    default: break;
    }
    std::vector<rblk::ConnectOptions> sessions;
    if (req.command == Command::Apply)
        sessions = load_sessions(req);
    rblk::Client client;  // throws ModuleNotLoaded without rblk.ko
    switch (req.command) {
    case Command::Connect: return run_connect(req, client, out);
    case Command::Disconnect: return run_disconnect(req, client, out);
    case Command::List: return run_list(req, client, out);
    case Command::Show: return run_show(req, client, out);
    case Command::Stats: return run_stats(req, client, out);
    case Command::Monitor: return run_monitor(req, client, out);
    case Command::Apply: return run_apply(req, sessions, client, out);
    case Command::Save: return run_save(req, client, out);
    case Command::Discover: return run_discover(req, client, out);
    case Command::ConnectAll: return run_connect_all(req, client, out);
    case Command::ListSubsys: return run_list_subsys(req, client, out);
    case Command::SetIopolicy: return run_set_iopolicy(req, client, out);
    case Command::None:
    case Command::Bench:
    case Command::Completion:
    case Command::Read:
    case Command::Write:
    case Command::ConnectBypass:
    case Command::UblkServer:
    case Command::GenDhchapKey: break;
    }
    return 0;
}

}  // namespace rblkctl
