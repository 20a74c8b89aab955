// rblkctl bench: option names and meanings follow fio's (--rw, --bs,
// --iodepth, --numjobs, --runtime, --rwmixread ...), values are taken as text
// and validated by rblk::bench::parse_options so every rule has its own message.
#include "cmd_bench.hpp"

#include <rblk/bench/engine.hpp>
#include <rblk/bench/report.hpp>

#include <csignal>
#include <unistd.h>

#include <atomic>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace rblkctl {
namespace {

namespace rb = rblk::bench;

// Text storage for each valued option, and where it goes in BenchArgs.
struct ValueOption {
    const char* name;
    const char* help;
    std::optional<std::string> rb::BenchArgs::*field;
    std::string text;
    CLI::Option* option = nullptr;
};

struct State {
    std::vector<ValueOption> values{
        {"--filename", "Block device or file (created at --size if absent)", &rb::BenchArgs::filename, {}},
        {"--rw", "read, write, randread, randwrite or randrw", &rb::BenchArgs::rw, {}},
        {"--bs", "Block size, e.g. 4k (default 4k)", &rb::BenchArgs::bs, {}},
        {"--iodepth", "I/Os in flight per job (default 1)", &rb::BenchArgs::iodepth, {}},
        {"--numjobs", "Jobs, each with its own thread and ring (default 1)", &rb::BenchArgs::numjobs, {}},
        {"--runtime", "Measured time, e.g. 10 or 10s, 500ms, 2m", &rb::BenchArgs::runtime, {}},
        {"--size", "Range of the target to use (default: all of it)", &rb::BenchArgs::size, {}},
        {"--io-limit", "Bytes each job transfers (default: --size unless --runtime)", &rb::BenchArgs::io_limit, {}},
        {"--ramp", "Warm-up time before measuring", &rb::BenchArgs::ramp, {}},
        {"--cpus", "Pin job i to the i-th CPU of a list like 0-3,6", &rb::BenchArgs::cpus, {}},
        {"--rwmixread", "Percent of reads in randrw (default 50)", &rb::BenchArgs::rwmixread, {}},
        {"--batch-complete", "Completions to wait for at once, up to --iodepth (default 1; fio's iodepth_batch_complete_min)", &rb::BenchArgs::batch_complete, {}},
    };
    rb::BenchArgs flags;
};

// The first Ctrl-C ends the run with the results so far; SA_RESETHAND makes
// a second one kill the process as usual.
std::atomic<bool> g_interrupted{false};

class InterruptGuard {
public:
    InterruptGuard()
    {
        g_interrupted.store(false);
        struct sigaction sa{};
        sa.sa_handler = [](int) { g_interrupted.store(true); };
        sa.sa_flags = SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGINT, &sa, &previous_);
    }
    ~InterruptGuard() { ::sigaction(SIGINT, &previous_, nullptr); }
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

private:
    struct sigaction previous_{};
};

}  // namespace

void run_bench_command(const rb::BenchArgs& args, std::ostream& out, std::ostream& err,
                       bool progress)
{
    const rb::BenchOptions options = rb::parse_options(args);
    const InterruptGuard interrupt;
    rb::ProgressFn show;
    if (progress)
        show = [&err](const rb::ProgressSample& s) {
            err << '\r' << rb::progress_line(s) << "\033[K" << std::flush;  // overwrite in place
        };
    const rb::RunResult result = rb::run_bench(options, show, &g_interrupted);
    if (progress)
        err << "\r\033[K" << std::flush;
    if (auto error = result.first_error(); !error.empty())
        throw std::runtime_error(error);
    if (options.json)
        out << rb::to_json(result).dump(2) << '\n';
    else
        rb::print_text(out, result);
    out.flush();
    if (const rb::JobResult total = result.total(); total.mismatch_count > 0) {
        for (const auto& m : total.mismatches)  // the first few, however many jobs
            err << "rblkctl: verify: " << rb::describe(m) << '\n';
        throw std::runtime_error("verify failed: " + std::to_string(total.mismatch_count) +
                                 " of " + std::to_string(total.verified_blocks) +
                                 " blocks checked did not match");
    }
}

void add_bench_command(CLI::App& app, Request& req)
{
    auto state = std::make_shared<State>();
    CLI::App* sub = app.add_subcommand("bench", "Measure a block device or file with io_uring (fio-like)");
    for (auto& v : state->values)
        v.option = sub->add_option(v.name, v.text, v.help);
    sub->add_flag("--direct", state->flags.direct, "O_DIRECT on a file (block devices always are)");
    sub->add_flag("--verify", state->flags.verify, "Stamp written blocks, check read ones");
    sub->add_flag("--sqpoll", state->flags.sqpoll, "Kernel thread polls the submission queue");
    sub->add_flag("--hipri", state->flags.hipri, "Polled completions (needs device poll queues)");
    sub->add_flag("--json", state->flags.json, "fio-like JSON report");
    sub->callback([state, &req] {
        req.command = Command::Bench;
        req.bench = state->flags;
        for (const auto& v : state->values)
            if (v.option->count() > 0)
                req.bench.*(v.field) = v.text;
        // Bad options are a usage error, told at parse time like CLI11's own.
        try {
            (void)rb::parse_options(req.bench);
        } catch (const std::exception& e) {
            throw CLI::ValidationError(e.what());
        }
    });
}

int run_bench(const Request& req, std::ostream& out)
{
    run_bench_command(req.bench, out, std::cerr, ::isatty(STDERR_FILENO) == 1);
    return 0;
}

}  // namespace rblkctl
