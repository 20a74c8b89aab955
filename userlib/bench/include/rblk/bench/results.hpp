// What a run measured, per job and in total.
#pragma once

#include "rblk/bench/block_header.hpp"
#include "rblk/bench/histogram.hpp"
#include "rblk/bench/options.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace rblk::bench {

struct DirStats {
    std::uint64_t ios = 0;
    std::uint64_t bytes = 0;
    Histogram lat;  // submission to completion, ns

    void merge(const DirStats& o)
    {
        ios += o.ios;
        bytes += o.bytes;
        lat.merge(o.lat);
    }
};

// Mismatches kept in detail per job; the rest are only counted.
inline constexpr std::size_t kMaxMismatchDetails = 16;

struct CpuTime {
    std::uint64_t usr_ns = 0, sys_ns = 0, ctx = 0;
};

struct JobResult {
    unsigned id = 0;
    DirStats read, write;
    std::uint64_t runtime_ns = 0;  // measured phase (after --ramp)
    CpuTime thread;   // this job's thread during its measured phase
    CpuTime process;  // the whole process then: io_uring's workers and SQPOLL threads too
    std::uint64_t verified_blocks = 0;
    std::uint64_t mismatch_count = 0;
    std::vector<Mismatch> mismatches;  // the first kMaxMismatchDetails
    std::string error;                 // empty: the job ran to its end
};

struct RunResult {
    BenchOptions options;
    std::string target_kind;        // "block" or "file"
    std::uint64_t target_size = 0;  // bytes of the range used
    bool target_direct = false;
    bool target_created = false;
    std::uint64_t generation = 0;   // --verify stamp of this run
    std::vector<JobResult> jobs;

    // Jobs merged: counts and histograms summed, runtime the longest, thread
    // CPU times summed, process CPU time the first job's.
    JobResult total() const;
    std::uint64_t mismatch_count() const;
    // The first job error, or empty.
    std::string first_error() const;
};

}  // namespace rblk::bench
