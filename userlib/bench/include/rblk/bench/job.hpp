// One job: a thread with its own ring, buffers and random stream, running
// the submit/complete loop over its part of the target.
#pragma once

#include "rblk/bench/job_io.hpp"
#include "rblk/bench/job_plan.hpp"
#include "rblk/bench/options.hpp"
#include "rblk/bench/results.hpp"
#include "rblk/bench/target.hpp"

#include <atomic>
#include <cstdint>
#include <latch>

namespace rblk::bench {

// Running totals (ramp included) for the once-a-second progress line; the job
// stores them once per completion batch, the printer only loads.
struct alignas(64) JobProgress {
    std::atomic<std::uint64_t> read_ios{0};
    std::atomic<std::uint64_t> write_ios{0};
    std::atomic<std::uint64_t> bytes{0};
};

struct JobContext {
    const BenchOptions& options;
    const Target& target;
    JobPlan plan;
    std::uint64_t generation;   // --verify stamp of this run
    std::latch& ready;          // every job set up: start together
    std::atomic<bool>& abort;   // a job failed: the others stop
    JobProgress& progress;
    const ExternalTarget* external = nullptr;  // set: its JobIo, not io_uring on target.fd
};

// Never throws: a failure lands in JobResult::error (and raises abort).
JobResult run_job(const JobContext& ctx);

}  // namespace rblk::bench
