// rblkctl monitor: controller state changes as they happen, and the module
// being unloaded and loaded again (it keeps running across a reload).
#include "commands.hpp"
#include "format.hpp"

#include <rblk/json.hpp>

namespace rblkctl {

void add_monitor(CLI::App& app, Request& req)
{
    CLI::App* sub = app.add_subcommand("monitor", "Print controller state changes until interrupted");
    sub->add_flag("--json", req.json, "One JSON object a line");
    sub->callback([&req] { req.command = Command::Monitor; });
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
        });
    return 0;
}

}  // namespace rblkctl
