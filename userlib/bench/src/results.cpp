#include "rblk/bench/results.hpp"

#include <algorithm>

namespace rblk::bench {

JobResult RunResult::total() const
{
    JobResult t;
    for (const auto& j : jobs) {
        t.read.merge(j.read);
        t.write.merge(j.write);
        t.runtime_ns = std::max(t.runtime_ns, j.runtime_ns);
        t.thread.usr_ns += j.thread.usr_ns;
        t.thread.sys_ns += j.thread.sys_ns;
        t.thread.ctx += j.thread.ctx;
        t.verified_blocks += j.verified_blocks;
        t.mismatch_count += j.mismatch_count;
        for (const auto& m : j.mismatches)
            if (t.mismatches.size() < kMaxMismatchDetails)
                t.mismatches.push_back(m);
        if (t.error.empty())
            t.error = j.error;
    }
    if (!jobs.empty())
        t.process = jobs.front().process;
    return t;
}

std::uint64_t RunResult::mismatch_count() const
{
    std::uint64_t n = 0;
    for (const auto& j : jobs)
        n += j.mismatch_count;
    return n;
}

std::string RunResult::first_error() const
{
    for (const auto& j : jobs)
        if (!j.error.empty())
            return j.error;
    return {};
}

}  // namespace rblk::bench
