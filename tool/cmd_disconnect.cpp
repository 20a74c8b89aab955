// rblkctl disconnect NAME | --nqn NQN | --all
#include "commands.hpp"

namespace rblkctl {

void add_disconnect(CLI::App& app, Request& req)
{
    CLI::App* sub = app.add_subcommand("disconnect", "Delete controllers");
    CLI::Option* name = sub->add_option("name", req.name, "Controller name, e.g. rblk0");
    CLI::Option* nqn = sub->add_option("-n,--nqn", req.nqn, "Every controller of this subsystem");
    CLI::Option* all = sub->add_flag("-A,--all", req.all, "Every controller");
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
    if (req.all) {
        for (const std::string& name : client.disconnect_all())
            out << name << '\n';
    } else if (!req.nqn.empty()) {
        client.disconnect_nqn(req.nqn);
    } else {
        client.disconnect(req.name);
    }
    return 0;
}

}  // namespace rblkctl
