// rblkctl disconnect NAME | --nqn NQN | --all [--json]: prints the names deleted.
#include "commands.hpp"

#include <nlohmann/json.hpp>

namespace rblkctl {

void add_disconnect(CLI::App& app, Request& req)
{
    CLI::App* sub = app.add_subcommand("disconnect", "Delete controllers");
    CLI::Option* name = add_name_argument(sub, req);
    CLI::Option* nqn = sub->add_option("-n,--nqn", req.nqn, "Every controller of this subsystem");
    CLI::Option* all = sub->add_flag("-A,--all", req.all, "Every controller");
    add_json_options(sub, req.json, "Print {\"disconnected\": [names]}");
    name->excludes(nqn, all);
    nqn->excludes(all);
    sub->callback([&req, name, nqn, all] {
        if (!*name && !*nqn && !*all)
            throw CLI::ValidationError("disconnect: give a controller NAME, --nqn NQN or --all");
        req.command = Command::Disconnect;
    });
}

int run_disconnect(const Request& req, rblk::Client& client, std::ostream& out)
{
    std::vector<std::string> names;
    if (req.all) {
        names = client.disconnect_all();
    } else if (!req.nqn.empty()) {
        names = client.disconnect_nqn(req.nqn);
    } else {
        client.disconnect(req.name);
        names = {req.name};
    }
    if (req.json) {
        out << nlohmann::json{{"disconnected", names}}.dump() << '\n';
    } else {
        for (const std::string& name : names)
            out << name << '\n';
    }
    return 0;
}

}  // namespace rblkctl
