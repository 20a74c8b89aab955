// rblkctl apply [FILE] / save [FILE]: persistent sessions (rblk/session_config.hpp),
// in rblk's sessions file or, with --format libnvme, libnvme's config.json.
#include "commands.hpp"
#include "format.hpp"

#include <rblk/error.hpp>
#include <rblk/host_identity.hpp>
#include <rblk/session_config.hpp>
#include <rblk/session_file.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include <sys/stat.h>

namespace rblkctl {

namespace {

// --format, and the file it implies when none is given; then `command`.
void add_format(CLI::App* sub, CLI::Option* file, Request& req, Command command)
{
    sub->add_option_function<std::string>(
           "-f,--format",
           [&req](const std::string& f) {
               req.format = f == "libnvme" ? rblk::SessionFormat::Libnvme
                                           : rblk::SessionFormat::Rblk;
           },
           "File format: rblk (rblk's sessions file) or libnvme (nvme-cli's config.json, "
           "as nvme config --dump writes it, read with libnvme)")
        ->check(CLI::IsMember({"rblk", "libnvme"}));
    sub->callback([&req, file, command] {
        req.command = command;
        if (req.format != rblk::SessionFormat::Libnvme || file->count() != 0)
            return;
        // nvme-cli's file, read as nvme-cli reads it; written only when named.
        if (command == Command::Save)
            throw CLI::ValidationError(
                std::string("save --format libnvme needs a FILE: ") + rblk::kLibnvmeConfigFile +
                " is nvme-cli's (connect-all connects from it with nvme-rdma); name it to "
                "merge into it, or '-' to print");
        req.file = rblk::kLibnvmeConfigFile;
    });
}

}  // namespace

void add_session(CLI::App& app, Request& req)
{
    CLI::App* apply = app.add_subcommand("apply", "Connect every session of a sessions file "
                                                  "that is not connected yet");
    add_format(apply,
               apply->add_option("file", req.file,
                                 std::string("Sessions file (default ") +
                                     rblk::kDefaultSessionsFile + ", with --format libnvme " +
                                     rblk::kLibnvmeConfigFile + "; '-': stdin)"),
               req, Command::Apply);
    add_json_options(apply, req.json, "Print the outcome as JSON");

    CLI::App* save = app.add_subcommand("save", "Write the current controllers as a sessions file");
    add_format(save,
               save->add_option("file", req.file,
                                std::string("Sessions file (default ") +
                                    rblk::kDefaultSessionsFile +
                                    "; '-': stdout); with --format libnvme required: the "
                                    "sessions are merged into it"),
               req, Command::Save);
}

std::vector<rblk::ConnectOptions> load_sessions(const Request& req)
{
    rblk::SessionsRead read;
    if (req.format == rblk::SessionFormat::Libnvme)
        read = rblk::load_libnvme_config_file(req.file);
    else
        read.sessions = rblk::load_sessions_file(req.file);
    for (const std::string& w : read.warnings)
        std::cerr << "rblkctl: warning: " << w << '\n';
    std::vector<rblk::ConnectOptions>& sessions = read.sessions;
    // As ssh of a private key, but a warning: a boot's apply still connects.
    struct stat st {};
    if (req.file != "-" && ::stat(req.file.c_str(), &st) == 0 && (st.st_mode & S_IROTH) &&
        std::any_of(sessions.begin(), sessions.end(),
                    [](const rblk::ConnectOptions& o) { return o.dhchap_secret.has_value(); }))
        std::cerr << "rblkctl: warning: " << req.file
                  << " holds DH-HMAC-CHAP keys and anyone can read it: chmod o-r it\n";
    const rblk::HostIdentity host = host_identity();
    for (rblk::ConnectOptions& o : sessions) {
        rblk::apply_host_identity(o, host);
        // Host names as addresses, so "already connected" compares alike.
        o = rblk::resolve_traddr(o);
    }
    return sessions;
}

int run_apply(const Request& req, const std::vector<rblk::ConnectOptions>& sessions,
              rblk::Client& client, std::ostream& out)
{
    nlohmann::json results = nlohmann::json::array();
    std::size_t failed = 0;
    for (const rblk::SessionAction& a : rblk::plan_apply(sessions, client.list())) {
        const rblk::ConnectOptions& o = a.options;
        nlohmann::json r = {{"subnqn", o.subnqn}, {"traddr", o.traddr}, {"trsvcid", o.trsvcid}};
        if (a.existing) {
            r["result"] = "existing";
            r["name"] = *a.existing;
        } else {
            try {
                r["name"] = client.connect(o).name;
                r["result"] = "connected";
            } catch (const std::exception& e) {
                ++failed;
                r["result"] = "failed";
                r["error"] = e.what();
            }
        }
        if (!req.json) {
            const std::string outcome = r["result"] == "failed"
                                            ? "failed: " + r["error"].get<std::string>()
                                            : r["result"].get<std::string>();
            out << format_session(r.value("name", ""), o.subnqn, o.traddr, o.trsvcid, outcome)
                << '\n';
        }
        results.push_back(std::move(r));
    }
    if (req.json)
        out << nlohmann::json{{"sessions", results}}.dump(2) << '\n';
    if (failed)
        throw std::runtime_error("apply: " + std::to_string(failed) + " of " +
                                 std::to_string(results.size()) + " sessions failed");
    return 0;
}

int run_save(const Request& req, rblk::Client& client, std::ostream& out)
{
    std::vector<rblk::ControllerInfo> controllers = client.list();
    // DH-HMAC-CHAP keys go into a file that only its owner reads, never to
    // stdout; the kernel gives them to root alone.
    const auto has_keys = [](const rblk::ControllerInfo& c) {
        return c.dhchap != rblk::Dhchap::None && !c.discovery;
    };
    if (std::any_of(controllers.begin(), controllers.end(), has_keys)) {
        if (req.file == "-")
            std::cerr << "rblkctl: warning: DH-HMAC-CHAP keys are not printed: save to a file "
                         "to keep them\n";
        else
            controllers = client.list_with_secrets();
    }
    const bool keys = std::any_of(controllers.begin(), controllers.end(),
                                  [](const rblk::ControllerInfo& c) { return c.dhchap_secret.has_value(); });
    if (req.format == rblk::SessionFormat::Rblk) {
        const nlohmann::json config = rblk::sessions_json(controllers);
        if (req.file == "-")
            out << config.dump(2) << '\n';
        else
            rblk::write_json_file(req.file, config, keys ? 0600 : 0644);
        return 0;
    }
    if (req.file == "-") {
        out << rblk::libnvme_config_json(controllers).dump(2) << '\n';
        return 0;
    }
    std::error_code ec;
    if (std::filesystem::equivalent(req.file, rblk::kLibnvmeConfigFile, ec))
        std::cerr << "rblkctl: warning: " << req.file
                  << ": nvme connect-all (nvmf-autoconnect at boot) discovers at its ports "
                     "and connects what it finds with the kernel's nvme-rdma too\n";
    rblk::save_libnvme_config_file(req.file, controllers);
    return 0;
}

}  // namespace rblkctl
