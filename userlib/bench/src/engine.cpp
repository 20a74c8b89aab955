#include "rblk/bench/engine.hpp"

#include "rblk/bench/job.hpp"
#include "rblk/bench/job_plan.hpp"
#include "rblk/bench/target.hpp"

#include <chrono>
#include <latch>
#include <random>
#include <thread>
#include <vector>

namespace rblk::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Totals {
    std::uint64_t read_ios = 0, write_ios = 0, bytes = 0;
};

Totals sum(const std::vector<JobProgress>& progress)
{
    Totals t;
    for (const auto& p : progress) {
        t.read_ios += p.read_ios.load(std::memory_order_relaxed);
        t.write_ios += p.write_ios.load(std::memory_order_relaxed);
        t.bytes += p.bytes.load(std::memory_order_relaxed);
    }
    return t;
}

// Waits for the jobs, calling `progress` about once a second meanwhile and
// passing a user's stop request on to them.
void watch(const std::atomic<unsigned>& finished, unsigned jobs,
           const std::vector<JobProgress>& counters, const ProgressFn& progress,
           const std::atomic<bool>* stop, std::atomic<bool>& abort)
{
    const auto start = Clock::now();
    auto last_time = start;
    Totals last{};
    while (finished.load() < jobs) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (stop && stop->load())
            abort.store(true);
        const auto now = Clock::now();
        const double dt = std::chrono::duration<double>(now - last_time).count();
        if (!progress || dt < 1.0)
            continue;
        const Totals cur = sum(counters);
        auto rate = [dt](std::uint64_t a, std::uint64_t b) {
            return static_cast<std::uint64_t>(static_cast<double>(a - b) / dt);
        };
        progress({std::chrono::duration<double>(now - start).count(),
                  rate(cur.read_ios, last.read_ios), rate(cur.write_ios, last.write_ios),
                  rate(cur.bytes, last.bytes)});
        last = cur;
        last_time = now;
    }
}

}  // namespace

RunResult run_bench(const BenchOptions& o, const ProgressFn& progress,
                    const std::atomic<bool>* stop, const ExternalTarget* external)
{
    const Target target = external ? external_target(o, *external) : open_target(o);
    const auto plans = plan_jobs(o, target.size);

    RunResult r;
    r.options = o;
    r.target_kind = external ? external->kind : target.block_device ? "block" : "file";
    r.target_size = target.size;
    r.target_direct = target.direct;
    r.target_created = target.created;
    r.generation = std::random_device{}() ^
                   static_cast<std::uint64_t>(Clock::now().time_since_epoch().count());

    const unsigned n = o.numjobs;
    std::vector<JobProgress> counters(n);
    std::vector<JobResult> results(n);
    std::latch ready(n);
    std::atomic<bool> abort{false};
    std::atomic<unsigned> finished{0};
    {
        std::vector<std::jthread> threads;
        threads.reserve(n);
        for (unsigned i = 0; i < n; ++i) {
            try {
                threads.emplace_back([&, i] {
                    results[i] = run_job({o, target, plans[i], r.generation, ready, abort,
                                          counters[i], external});
                    finished.fetch_add(1);
                });
            } catch (...) {
                // The started jobs wait for n arrivals: stand in for the rest.
                abort.store(true);
                ready.count_down(n - i);
                throw;
            }
        }
        watch(finished, n, counters, progress, stop, abort);
    }  // jthreads join here
    r.jobs = std::move(results);
    return r;
}

}  // namespace rblk::bench
