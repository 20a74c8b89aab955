// rblkctl list / show NAME: the controllers and their namespaces; and the
// NAME that show, stats and disconnect take.
#include "commands.hpp"
#include "format.hpp"

#include <rblk/json.hpp>

#include <filesystem>
#include <regex>

namespace rblkctl {

std::optional<std::string> controller_name(const std::string& given)
{
    std::string name = given;
    if (given.starts_with('/')) {
        namespace fs = std::filesystem;
        std::error_code ec;  // not there: taken as written
        fs::path p = fs::weakly_canonical(given, ec);
        if (ec)
            p = fs::path(given).lexically_normal();
        if (p.parent_path() != "/dev")
            return std::nullopt;
        name = p.filename().string();
    }
    // The kernel's names: rblk<ctrl id>, its disks rblk<id>n<nsid>, their
    // partitions rblk<id>n<nsid>p<part>.
    static const std::regex kName("(rblk[0-9]+)(n[0-9]+(p[0-9]+)?)?");
    std::smatch m;
    if (!std::regex_match(name, m, kName))
        return std::nullopt;
    return m[1].str();
}

CLI::Option* add_name_argument(CLI::App* sub, Request& req)
{
    return sub
        ->add_option("name", req.name,
                     "Controller (rblk0), one of its disks (rblk0n1) or a /dev path of either")
        ->transform(CLI::Validator(
            [](std::string& s) {
                const auto ctrl = controller_name(s);
                if (!ctrl)
                    return "'" + s + "' is not a controller (rblk0), a disk (rblk0n1) or " +
                           "a /dev path of one";
                s = *ctrl;
                return std::string();
            },
            "NAME"));
}

void add_list(CLI::App& app, Request& req)
{
    CLI::App* list = app.add_subcommand("list", "List controllers and their block devices");
    add_json_options(list, req.json, "Print JSON: {\"controllers\": [...]}");
    list->callback([&req] { req.command = Command::List; });

    CLI::App* show = app.add_subcommand("show", "Show one controller in detail");
    add_name_argument(show, req)->required();
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
