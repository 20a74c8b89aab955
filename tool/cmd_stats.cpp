// rblkctl stats NAME [--json] [--watch [SECONDS] [--count N]]: the counters
// once, or every SECONDS the per-second rates since the previous sample
// (N times, as iostat's count, or until interrupted).
#include "commands.hpp"
#include "format.hpp"

#include <rblk/json.hpp>
#include <rblk/stats_rate.hpp>

#include <chrono>
#include <cmath>
#include <thread>

namespace rblkctl {

void add_stats(CLI::App& app, Request& req)
{
    CLI::App* sub = app.add_subcommand("stats", "Show a controller's I/O counters");
    add_name_argument(sub, req)->required();
    add_json_options(sub, req.json, "Print JSON (with --watch: one object a line)");
    CLI::Option* watch = sub->add_option("-w,--watch", req.watch_interval,
                    "Every SECONDS, print IOPS, MiB/s, in-flight, errors and reconnects "
                    "until interrupted (or --count times)")
        ->expected(0, 1)
        ->default_str("1")
        ->check(CLI::Validator(
            [](const std::string& s) {
                // CLI::PositiveNumber would print its range, 2.2e-308 to 1.8e+308.
                double v = 0;
                if (!CLI::detail::lexical_cast(s, v))
                    return "'" + s + "' is not a number of seconds";
                if (!(v > 0) || !std::isfinite(v))
                    return s + " is out of range (must be greater than 0)";
                return std::string();
            },
            "SECONDS>0"));
    sub->add_option("--count", req.watch_count, "With --watch: stop after N samples")
        ->check(CLI::Validator(
            [](const std::string& s) {
                long long v = 0;
                if (!CLI::detail::lexical_cast(s, v) || v < 1 || v > 1000000)
                    return s + " is out of range (1..1000000)";
                return std::string();
            },
            "N"))
        ->needs(watch);
    sub->callback([&req, sub] {
        if (sub->count("--watch") && req.watch_interval <= 0)
            req.watch_interval = 1;
        req.command = Command::Stats;
    });
}

namespace {

int watch_stats(const Request& req, rblk::Client& client, std::ostream& out)
{
    using clock = std::chrono::steady_clock;
    const auto interval = std::chrono::duration_cast<clock::duration>(
        std::chrono::duration<double>(req.watch_interval));
    rblk::ControllerInfo prev = client.stats(req.name);
    clock::time_point prev_at = clock::now();
    if (!req.json)
        out << format_stats_header() << std::flush;
    // Ticks on a fixed schedule; the rates use the time actually elapsed.
    clock::time_point next = prev_at;
    for (unsigned n = 0; req.watch_count == 0 || n < req.watch_count; ++n) {
        next += interval;
        std::this_thread::sleep_until(next);
        const rblk::ControllerInfo c = client.stats(req.name);
        const clock::time_point at = clock::now();
        const rblk::StatsRates r = rblk::rates_between(
            prev.stats.value_or(rblk::CtrlStats{}), c.stats.value_or(rblk::CtrlStats{}),
            std::chrono::duration<double>(at - prev_at).count());
        if (req.json)
            out << rblk::controller_stats_json(c, r).dump() << '\n';
        else
            out << format_stats_row(c, r);
        out.flush();
        if (!out)
            return 1;  // stdout is gone
        prev = c;
        prev_at = at;
    }
    return 0;
}

}  // namespace

int run_stats(const Request& req, rblk::Client& client, std::ostream& out)
{
    if (req.watch_interval > 0)
        return watch_stats(req, client, out);
    const rblk::ControllerInfo c = client.stats(req.name);
    if (req.json)
        out << rblk::controller_stats_json(c).dump(2) << '\n';
    else
        out << format_stats(c);
    return 0;
}

}  // namespace rblkctl
