#include "cli.hpp"

#include "cmd_bench.hpp"
#include "commands.hpp"
#include "completion.hpp"
#include "exit_codes.hpp"
#include "suggest.hpp"

#include <rblk/error.hpp>

#include <exception>

namespace rblkctl {

std::string version_string() { return "rblkctl " RBLK_VERSION; }

Cli::Cli() : app_("rblkctl: control rblk NVMe-oF/RDMA block devices", "rblkctl")
{
    app_.set_version_flag("--version", version_string());
    app_.require_subcommand(1);
    // Before the subcommands: they inherit it. CLI11 ends help without a newline.
    app_.footer(std::string(kExitStatusHelp) + "\n");
    add_connect(app_, request_);
    add_disconnect(app_, request_);
    add_list(app_, request_);
    add_iopolicy(app_, request_);
    add_stats(app_, request_);
    add_monitor(app_, request_);
    add_session(app_, request_);
    add_discover(app_, request_);
    add_bench_command(app_, request_);
    add_bypass_io(app_, request_);
    add_ublk_server(app_, request_);
    add_keys(app_, request_);
    add_completion(app_, request_);  // last: it describes everything above
}

namespace {

bool is_option(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

std::string hint(const std::string& typed, const std::vector<std::string>& candidates)
{
    const auto best = closest(typed, candidates);
    return best ? "; did you mean '" + *best + "'?" : std::string();
}

std::vector<std::string> subcommand_names(const CLI::App& app)
{
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        names.push_back(sub->get_name());
    return names;
}

std::vector<std::string> long_options(const CLI::App& app)
{
    std::vector<std::string> names;
    for (const CLI::Option* opt : app.get_options())
        for (const std::string& l : opt->get_lnames())
            names.push_back("--" + l);
    return names;
}

}  // namespace

std::string usage_message(const CLI::App& root, const CLI::ParseError& e)
{
    // What the root and its subcommand could not place, each in the order
    // typed (CLI11's ExtrasError lists them reversed).
    struct Leftover {
        const CLI::App* app;
        std::string arg;
    };
    std::vector<Leftover> left;
    for (const std::string& a : root.remaining(false))
        left.push_back({&root, a});
    const std::vector<CLI::App*> parsed = root.get_subcommands();
    for (const CLI::App* sub : parsed)
        for (const std::string& a : sub->remaining(false))
            left.push_back({sub, a});
    if (left.empty())
        return e.what();

    const Leftover& first = left.front();
    std::string msg;
    if (is_option(first.arg)) {
        const std::string name = first.arg.substr(0, first.arg.find('='));  // --nqm=x
        // Single letters are too close to one another for a useful hint.
        msg = "unknown option '" + name + "'" +
              (name.starts_with("--") ? hint(name, long_options(*first.app)) : "");
    } else if (first.app == &root && parsed.empty() && !subcommand_names(root).empty()) {
        msg = "unknown command '" + first.arg + "'" + hint(first.arg, subcommand_names(root));
    } else {
        msg = "unexpected argument '" + first.arg + "'";
    }
    // The rest, but for a word right after an unknown --option: presumably
    // its value (--nqm nqn.x), not a mistake of its own.
    std::string rest;
    for (std::size_t i = 1; i < left.size(); ++i) {
        const Leftover& prev = left[i - 1];
        const bool value_of_prev = !is_option(left[i].arg) && prev.app == left[i].app &&
                                   prev.arg.starts_with("--") &&
                                   prev.arg.find('=') == std::string::npos;
        if (!value_of_prev)
            rest += " " + left[i].arg;
    }
    if (!rest.empty())
        msg += " (not expected either:" + rest + ")";
    return msg;
}

void Cli::parse(const std::vector<std::string>& argv)
{
    std::vector<const char*> ptrs;
    for (const std::string& a : argv)
        ptrs.push_back(a.c_str());
    parse(static_cast<int>(ptrs.size()), ptrs.data());
}

void Cli::parse(int argc, const char* const* argv)
{
    try {
        app_.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0)
            throw;  // --help, --version
        const std::string msg = usage_message(app_, e);
        if (msg == e.what())
            throw;
        throw CLI::ExtrasError(msg, CLI::ExitCodes::ExtrasError);
    }
}

int run_main(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err,
             const Runner& runner)
{
    Cli cli;
    try {
        cli.parse(argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0)  // --help, --version
            return cli.app().exit(e, out, err) == 0 ? kExitOk : kExitUsage;
        err << "rblkctl: " << e.what() << '\n';
        return kExitUsage;  // never CLI11's own numbers (105, 106 ...)
    }
    try {
        return runner(cli.request(), out);
    } catch (const rblk::ModuleNotLoaded& e) {
        out.flush();
        err << "rblkctl: " << e.what() << '\n';
        return kExitModuleNotLoaded;
    } catch (const std::exception& e) {
        out.flush();
        err << "rblkctl: " << e.what() << '\n';
        return kExitFailure;
    }
}

}  // namespace rblkctl
