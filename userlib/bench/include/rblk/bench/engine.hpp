// Runs a whole bench: opens the target, lays out the jobs, starts one thread
// per job, samples progress once a second, and collects the results.
#pragma once

#include "rblk/bench/job_io.hpp"
#include "rblk/bench/options.hpp"
#include "rblk/bench/results.hpp"

#include <atomic>
#include <cstdint>
#include <functional>

namespace rblk::bench {

// Rates over the last second.
struct ProgressSample {
    double elapsed_s;
    std::uint64_t read_iops;
    std::uint64_t write_iops;
    std::uint64_t bytes_per_s;
};
using ProgressFn = std::function<void(const ProgressSample&)>;

// Throws OptionError for input the target rejects and std::system_error when
// it cannot be opened; job failures (I/O errors) land in RunResult::jobs[].error,
// verify mismatches in their mismatch lists. Setting *stop (e.g. from a
// SIGINT handler) ends the run early with the results so far, as fio does.
// With `external`, the jobs run on it (job_io.hpp) instead of o.filename.
RunResult run_bench(const BenchOptions& o, const ProgressFn& progress = {},
                    const std::atomic<bool>* stop = nullptr,
                    const ExternalTarget* external = nullptr);

}  // namespace rblk::bench
