// Which part of the target each job works on, and how much it may transfer.
// Without --verify every job covers the whole range (as fio's jobs on one
// file do); with --verify the range is split so no two jobs write the same
// block, which is what makes a per-block "last written" record possible.
#pragma once

#include "rblk/bench/options.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace rblk::bench {

// --verify remembers the last sequence written to every block of a job.
inline constexpr std::uint64_t kMaxVerifyBlocks = std::uint64_t{1} << 24;

struct JobPlan {
    unsigned id;
    std::uint64_t start;                    // first byte of the job's range, --offset included
    std::uint64_t length;                   // bytes, a multiple of bs
    std::optional<std::uint64_t> io_limit;  // bytes to transfer; none: until runtime ends
};

// The range is [o.offset, o.offset + target_size): target_size is what
// open_target() or external_target() left of the target past --offset.
// Throws OptionError when the range cannot be laid out as asked.
std::vector<JobPlan> plan_jobs(const BenchOptions& o, std::uint64_t target_size);

}  // namespace rblk::bench
