// rblkctl bench: option names and meanings follow fio's (--rw, --bs,
// --iodepth, --numjobs, --runtime, --rwmixread ...), values are taken as text
// and validated by rblk::bench::parse_options so every rule has its own message.
#include "cmd_bench.hpp"

#include "commands.hpp"

#include <rblk/bench/bypass_job_io.hpp>
#include <rblk/bench/engine.hpp>
#include <rblk/bench/report.hpp>
#include <rblk/bypass/controller.hpp>
#include <rblk/host_identity.hpp>

#include <csignal>
#include <unistd.h>

#include <algorithm>
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
// The SIZE ones are parsed by rb::parse_size_option, read's and write's parser.
struct ValueOption {
    const char* name;
    const char* help;
    std::optional<std::string> rb::BenchArgs::*field;
    const char* type = nullptr;  // for help and the manual; null: CLI11's TEXT
    std::string text;
    CLI::Option* option = nullptr;
};

struct State {
    std::vector<ValueOption> values{
        {"--filename", "Block device or file (created to hold --offset + --size if absent)", &rb::BenchArgs::filename, nullptr, {}},
        {"--rw", "read, write, randread, randwrite or randrw", &rb::BenchArgs::rw, nullptr, {}},
        {"--bs", "Block size, e.g. 4k (default 4k)", &rb::BenchArgs::bs, "SIZE", {}},
        {"--iodepth", "I/Os in flight per job (default 1)", &rb::BenchArgs::iodepth, nullptr, {}},
        {"--numjobs", "Jobs, each with its own thread and ring (default 1)", &rb::BenchArgs::numjobs, nullptr, {}},
        {"--runtime", "Measured time, e.g. 10 or 10s, 500ms, 2m", &rb::BenchArgs::runtime, nullptr, {}},
        {"--size", "Range of the target to use, from --offset (default: all of it past --offset)", &rb::BenchArgs::size, "SIZE", {}},
        {"--offset", "First byte of the range, a multiple of --bs (default 0)", &rb::BenchArgs::offset, "SIZE", {}},
        {"--io-limit", "Bytes each job transfers (default: --size unless --runtime)", &rb::BenchArgs::io_limit, "SIZE", {}},
        {"--ramp", "Warm-up time before measuring", &rb::BenchArgs::ramp, nullptr, {}},
        {"--cpus", "Pin job i to the i-th CPU of a list like 0-3,6", &rb::BenchArgs::cpus, nullptr, {}},
        {"--rwmixread", "Percent of reads in randrw (default 50)", &rb::BenchArgs::rwmixread, nullptr, {}},
        {"--batch-complete", "Completions to wait for at once, up to --iodepth (default 1; fio's iodepth_batch_complete_min)", &rb::BenchArgs::batch_complete, nullptr, {}},
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

// --path bypass: --traddr and --nqn instead of --filename, and none of
// io_uring's own options; the report names the target by its NQN.
void check_bench_path(Request& req, const CLI::App& sub, bool bypass_options)
{
    const rblk::ConnectOptions& c = req.connect;
    rb::BenchArgs& b = req.bench;
    if (req.bench_path == "kernel") {
        if (bypass_options)
            throw CLI::ValidationError("--traddr and --nqn go with --path bypass");
        return;
    }
    if (b.filename)
        throw CLI::ValidationError("--filename goes with --path kernel; --path bypass takes --traddr and --nqn");
    if (c.traddr.empty() || c.subnqn.empty())
        throw CLI::ValidationError("--path bypass needs --traddr and --nqn");
    // --hipri keeps its meaning, polled completions: the job busy-polls.
    for (const auto& [set, name] : {std::pair{b.direct, "--direct"}, {b.sqpoll, "--sqpoll"}})
        if (set)
            throw CLI::ValidationError(std::string(name) + " is io_uring's: not with --path bypass");
    if (req.bypass_io.nsid < 1 || req.bypass_io.nsid >= 0xffffffffLL)
        throw CLI::ValidationError("--nsid " + std::to_string(req.bypass_io.nsid) +
                                   " is out of range (1..4294967294)");
    check_options(sub, c);
    b.filename = c.subnqn + "@" + c.traddr + ":" + std::to_string(c.trsvcid) + "/ns" +
                 std::to_string(req.bypass_io.nsid);
}

// One controller with an I/O queue per job, the jobs on them.
void run_bench_bypass(const Request& req, std::ostream& out)
{
    namespace bp = rblk::bypass;
    const rb::BenchOptions o = rb::parse_options(req.bench);  // its messages first
    bp::ControllerOptions co;
    co.connect = req.connect;
    co.connect.nr_io_queues = o.numjobs;
    co.connect.queue_size = std::max<std::int64_t>(o.iodepth, RBLK_DEFAULT_QUEUE_SIZE);
    rblk::apply_host_identity(co.connect, host_identity());
    co.connect = rblk::resolve_traddr(co.connect);
    co.nsid = static_cast<std::uint32_t>(req.bypass_io.nsid);
    bp::Controller ctrl(co);
    if (ctrl.nr_io_queues() < o.numjobs)
        throw std::runtime_error("the target grants " + std::to_string(ctrl.nr_io_queues()) +
                                 " I/O queues, --numjobs asks for " + std::to_string(o.numjobs));
    if (o.iodepth > ctrl.io_queue_size())
        throw std::runtime_error("--iodepth " + std::to_string(o.iodepth) + " exceeds the I/O queue size the target grants (" +
                                 std::to_string(ctrl.io_queue_size()) + ")");
    if (o.block_size > ctrl.io_queue(0).max_transfer())
        throw std::runtime_error("--bs " + std::to_string(o.block_size) + " exceeds the target's transfer limit (" +
                                 std::to_string(ctrl.io_queue(0).max_transfer()) + " bytes)");
    rb::ExternalTarget ext;
    ext.kind = "bypass";
    ext.path = o.filename;
    ext.bytes = ctrl.ns().size_bytes();
    ext.logical_block = ctrl.ns().lba_size();
    ext.make_io = [&ctrl, poll = o.hipri](unsigned job, const rb::IoBuffers& buffers) {
        return std::make_unique<rb::BypassJobIo>(ctrl.io_queue(job), buffers, poll);
    };
    run_bench_command(req.bench, out, std::cerr, ::isatty(STDERR_FILENO) == 1, &ext);
    ctrl.shutdown();
}

}  // namespace

void run_bench_command(const rb::BenchArgs& args, std::ostream& out, std::ostream& err,
                       bool progress, const rb::ExternalTarget* external)
{
    const rb::BenchOptions options = rb::parse_options(args);
    const InterruptGuard interrupt;
    rb::ProgressFn show;
    if (progress)
        show = [&err](const rb::ProgressSample& s) {
            err << '\r' << rb::progress_line(s) << "\033[K" << std::flush;  // overwrite in place
        };
    const rb::RunResult result = rb::run_bench(options, show, &g_interrupted, external);
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
    for (auto& v : state->values) {
        v.option = sub->add_option(v.name, v.text, v.help);
        if (v.type)
            v.option->type_name(v.type);
    }
    note_sizes(sub);
    sub->add_flag("--direct", state->flags.direct, "O_DIRECT on a file (block devices always are)");
    sub->add_flag("--verify", state->flags.verify, "Stamp written blocks, check read ones");
    sub->add_flag("--sqpoll", state->flags.sqpoll, "Kernel thread polls the submission queue");
    sub->add_flag("--hipri", state->flags.hipri,
                  "Polled completions (needs device poll queues; --path bypass: busy polling)");
    sub->add_flag("--json", state->flags.json, "fio-like JSON report");
    // The kernel-bypass path: rblkctl itself the initiator, no --filename.
    const char* bypass_group = "Kernel-bypass path (--path bypass)";
    sub->add_option("--path", req.bench_path,
                    "kernel: io_uring on --filename; bypass: rblkctl's own NVMe-oF/RDMA "
                    "initiator, one I/O queue per job")
        ->capture_default_str()
        ->check(CLI::IsMember({"kernel", "bypass"}));
    auto* a = sub->add_option("-a,--traddr", req.connect.traddr, "Target address (--path bypass)");
    auto* s = sub->add_option("-s,--trsvcid", req.connect.trsvcid, "Target port")->capture_default_str();
    auto* n = sub->add_option("-n,--nqn", req.connect.subnqn, "Subsystem NQN (--path bypass)");
    auto* ns = sub->add_option("--nsid", req.bypass_io.nsid, "Namespace ID")->capture_default_str();
    auto* q = sub->add_option("-q,--hostnqn", req.connect.hostnqn, "Host NQN (default: /etc/nvme/hostnqn)");
    auto* i = sub->add_option("-I,--hostid", req.connect.hostid, "Host UUID (default: /etc/nvme/hostid)");
    for (CLI::Option* opt : {a, s, n, ns, q, i})
        opt->group(bypass_group);
    sub->callback([state, &req, sub, a, n] {
        req.command = Command::Bench;
        req.bench = state->flags;
        for (const auto& v : state->values)
            if (v.option->count() > 0)
                req.bench.*(v.field) = v.text;
        check_bench_path(req, *sub, a->count() > 0 || n->count() > 0);
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
    if (req.bench_path == "bypass") {
        run_bench_bypass(req, out);
        return 0;
    }
    run_bench_command(req.bench, out, std::cerr, ::isatty(STDERR_FILENO) == 1);
    return 0;
}

}  // namespace rblkctl
