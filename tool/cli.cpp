#include "cli.hpp"

#include "cmd_bench.hpp"
#include "commands.hpp"
#include "completion.hpp"

namespace rblkctl {

std::string version_string() { return "rblkctl " RBLK_VERSION; }

Cli::Cli() : app_("rblkctl: control rblk NVMe-oF/RDMA block devices", "rblkctl")
{
    app_.set_version_flag("--version", version_string());
    app_.require_subcommand(1);
    add_connect(app_, request_);
    add_disconnect(app_, request_);
    add_list(app_, request_);
    add_stats(app_, request_);
    add_monitor(app_, request_);
    add_session(app_, request_);
    add_discover(app_, request_);
    add_bench_command(app_, request_);
    add_completion(app_, request_);  // last: it describes everything above
}

void Cli::parse(const std::vector<std::string>& argv)
{
    std::vector<const char*> ptrs;
    for (const std::string& a : argv)
        ptrs.push_back(a.c_str());
    parse(static_cast<int>(ptrs.size()), ptrs.data());
}

void Cli::parse(int argc, const char* const* argv) { app_.parse(argc, argv); }

}  // namespace rblkctl
