// rblkctl stats NAME [--json] [--watch [SECONDS]]
#include "commands.hpp"
#include "format.hpp"

#include <rblk/json.hpp>

#include <chrono>
#include <thread>

namespace rblkctl {

void add_stats(CLI::App& app, Request& req)
{
    CLI::App* sub = app.add_subcommand("stats", "Show a controller's I/O counters");
    sub->add_option("name", req.name, "Controller name, e.g. rblk0")->required();
    sub->add_flag("--json", req.json, "Print JSON (with --watch: one object a line)");
    sub->add_option("-w,--watch", req.watch_interval,
                    "Print again every SECONDS until interrupted")
        ->expected(0, 1)
        ->default_str("1")
        ->check(CLI::PositiveNumber);
    sub->callback([&req, sub] {
        if (sub->count("--watch") && req.watch_interval <= 0)
            req.watch_interval = 1;
        req.command = Command::Stats;
    });
}

int run_stats(const Request& req, rblk::Client& client, std::ostream& out)
{
    for (;;) {
        const rblk::ControllerInfo c = client.stats(req.name);
        if (req.json)
            out << rblk::controller_stats_json(c).dump(req.watch_interval > 0 ? -1 : 2) << '\n';
        else
            out << format_stats(c) << (req.watch_interval > 0 ? "\n" : "");
        out.flush();
        if (req.watch_interval <= 0)
            return 0;
        std::this_thread::sleep_for(std::chrono::duration<double>(req.watch_interval));
    }
}

}  // namespace rblkctl
