// rblkctl list / show NAME: the controllers and their namespaces.
#include "commands.hpp"
#include "format.hpp"

#include <rblk/json.hpp>

namespace rblkctl {

void add_list(CLI::App& app, Request& req)
{
    CLI::App* list = app.add_subcommand("list", "List controllers and their block devices");
    add_json_options(list, req.json, "Print JSON: {\"controllers\": [...]}");
    list->callback([&req] { req.command = Command::List; });

    CLI::App* show = app.add_subcommand("show", "Show one controller in detail");
    show->add_option("name", req.name, "Controller name, e.g. rblk0")->required();
    add_json_options(show, req.json, "Print JSON");
    show->callback([&req] { req.command = Command::Show; });
}

int run_list(const Request& req, rblk::Client& client, std::ostream& out)
{
    const auto controllers = client.list();
    if (req.json)
        out << rblk::list_json(controllers).dump(2) << '\n';
    else
        out << format_list(controllers);
    return 0;
}

int run_show(const Request& req, rblk::Client& client, std::ostream& out)
{
    const rblk::ControllerInfo c = client.show(req.name);
    if (req.json)
        out << rblk::controller_detail_json(c).dump(2) << '\n';
    else
        out << format_show(c);
    return 0;
}

}  // namespace rblkctl
