// rblkctl list / show NAME / list-subsys: the controllers, their
// subsystems and namespaces; set-iopolicy; and the NAME that show, stats
// and disconnect take.
#include "commands.hpp"
#include "format.hpp"

#include <rblk/error.hpp>
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
    // partitions rblk<id>n<nsid>p<part>; a multipath path disk
    // rblk<subsys>c<ctrl id>n<nsid>.
    static const std::regex kName("(rblk[0-9]+)(n[0-9]+(p[0-9]+)?)?");
    static const std::regex kPathDisk("rblk[0-9]+c([0-9]+)n[0-9]+");
    // A bypass server (cmd_ublk.cpp): bypass<N>, or its disk ublkb<N>.
    static const std::regex kBypass("bypass[0-9]+|ublkb[0-9]+");
    std::smatch m;
    if (std::regex_match(name, kBypass))
        return name;
    if (std::regex_match(name, m, kPathDisk))
        return "rblk" + m[1].str();
    if (!std::regex_match(name, m, kName))
        return std::nullopt;
    return m[1].str();
}

CLI::Option* add_name_argument(CLI::App* sub, Request& req)
{
    return sub
        ->add_option("name", req.name,
                     "Controller (rblk0, bypass0), one of its disks (rblk0n1, ublkb0) or a /dev "
                     "path of either")
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
    CLI::App* list = app.add_subcommand(
        "list", "List controllers (paths) by subsystem, their ANA state and block devices");
    add_json_options(list, req.json,
                     "Print JSON: {\"controllers\": [...], \"subsystems\": [...]}");
    list->callback([&req] { req.command = Command::List; });

    CLI::App* show = app.add_subcommand("show", "Show one controller in detail");
    add_name_argument(show, req)->required();
    add_json_options(show, req.json, "Print JSON");
    show->callback([&req] { req.command = Command::Show; });

    CLI::App* subsys = app.add_subcommand(
        "list-subsys", "List subsystems and their paths, as nvme list-subsys does");
    add_json_options(subsys, req.json,
                     "Print JSON in nvme-cli's shape: [{\"HostNQN\", \"Subsystems\": [...]}]");
    subsys->callback([&req] { req.command = Command::ListSubsys; });
}

namespace {

std::optional<std::uint32_t> subsys_number(const std::string& given)
{
    static const std::regex kSubsys("rblk-subsys([0-9]{1,9})");
    std::smatch m;
    if (!std::regex_match(given, m, kSubsys))
        return std::nullopt;
    return static_cast<std::uint32_t>(std::stoul(m[1].str()));
}

}  // namespace

void add_iopolicy(CLI::App& app, Request& req)
{
    CLI::App* sub = app.add_subcommand(
        "set-iopolicy", "Set how a subsystem's head disks choose among its paths");
    sub->add_option("subsystem", req.subsystem,
                    "Subsystem: its NQN, its name (rblk-subsys0), or one of its controllers "
                    "(rblk0) or disks")
        ->required();
    sub->add_option("policy", req.iopolicy,
                    "numa (the nearest path), round-robin (each in turn) or queue-depth (the "
                    "fewest outstanding commands)")
        ->required()
        ->check(CLI::IsMember(rblk::iopolicy_names()));
    CLI::Option* hostnqn = sub->add_option(
        "-q,--hostnqn", req.hostnqn,
        "Host NQN of the subsystem NQN names (default: every host NQN it is connected as)");
    sub->callback([&req, hostnqn] {
        if (req.subsystem.empty())
            throw CLI::ValidationError("set-iopolicy: the subsystem is empty");
        if (const auto ctrl = controller_name(req.subsystem))
            req.subsystem = *ctrl;
        if (*hostnqn && (controller_name(req.subsystem) || subsys_number(req.subsystem)))
            throw CLI::ValidationError("set-iopolicy: --hostnqn goes with a subsystem NQN, not '" +
                                       req.subsystem + "'");
        req.command = Command::SetIopolicy;
    });
}

rblk::SubsystemRef subsystem_ref(const Request& req,
                                 const std::vector<rblk::ControllerInfo>& controllers)
{
    if (const auto ctrl = controller_name(req.subsystem))
        return {*ctrl, {}, {}};
    if (const auto id = subsys_number(req.subsystem)) {
        for (const rblk::ControllerInfo& c : controllers)
            if (c.subsys_id == *id)
                return {c.name, {}, {}};
        throw rblk::InvalidOption("no subsystem " + req.subsystem);
    }
    // Without a host NQN the kernel sets the subsystem of every host NQN.
    return {{}, req.subsystem, req.hostnqn};
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

int run_list_subsys(const Request& req, rblk::Client& client, std::ostream& out)
{
    const auto controllers = client.list();
    if (req.json)
        out << rblk::list_subsys_json(controllers).dump(2) << '\n';
    else
        out << format_list_subsys(controllers);
    return 0;
}

int run_set_iopolicy(const Request& req, rblk::Client& client, std::ostream&)
{
    // Only a subsystem's name needs its controllers looked up.
    const std::vector<rblk::ControllerInfo> controllers =
        subsys_number(req.subsystem) ? client.list() : std::vector<rblk::ControllerInfo>{};
    // The CLI checked the name against iopolicy_names().
    client.set_iopolicy(subsystem_ref(req, controllers), *rblk::parse_iopolicy(req.iopolicy));
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
