#include "rblk/bench/job_plan.hpp"

#include <string>

namespace rblk::bench {

std::vector<JobPlan> plan_jobs(const BenchOptions& o, std::uint64_t target_size)
{
    const std::uint64_t bs = o.block_size;
    const std::uint64_t blocks = target_size / bs;
    const std::uint64_t parts = o.verify ? o.numjobs : 1;
    const std::uint64_t per_job = blocks / parts;
    if (o.verify) {
        if (per_job < o.iodepth)
            throw OptionError("--verify needs at least --iodepth (" + std::to_string(o.iodepth) +
                              ") blocks per job, got " + std::to_string(per_job) +
                              ": raise --size or lower --iodepth/--numjobs");
        if (per_job > kMaxVerifyBlocks)
            throw OptionError("--verify tracks every block: at most " +
                              std::to_string(kMaxVerifyBlocks) + " blocks per job, got " +
                              std::to_string(per_job) + ": lower --size or raise --bs");
    } else if (blocks == 0) {
        throw OptionError("the target is smaller than --bs");
    }

    std::vector<JobPlan> plans;
    for (unsigned id = 0; id < o.numjobs; ++id) {
        JobPlan p{id, o.offset + (o.verify ? id * per_job * bs : 0), per_job * bs, std::nullopt};
        // fio's rule: without a time limit a job does one pass of its range.
        if (o.io_limit)
            p.io_limit = o.io_limit;
        else if (!o.runtime)
            p.io_limit = p.length;
        plans.push_back(p);
    }
    return plans;
}

}  // namespace rblk::bench
