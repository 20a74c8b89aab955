#include <rblk/bench/job_plan.hpp>

#include <gtest/gtest.h>

namespace rblk::bench {
namespace {

BenchOptions opts(unsigned jobs, bool verify = false)
{
    BenchOptions o;
    o.filename = "x";
    o.mode = Mode::randrw;
    o.numjobs = jobs;
    o.iodepth = 4;
    o.verify = verify;
    return o;
}

std::string error_of(const BenchOptions& o, std::uint64_t size)
{
    try {
        plan_jobs(o, size);
    } catch (const OptionError& e) {
        return e.what();
    }
    return "";
}

TEST(JobPlan, WithoutVerifyEveryJobCoversTheWholeRangeOnce)
{
    const auto plans = plan_jobs(opts(3), 1 << 20);
    ASSERT_EQ(plans.size(), 3u);
    for (unsigned i = 0; i < 3; ++i) {
        EXPECT_EQ(plans[i].id, i);
        EXPECT_EQ(plans[i].start, 0u);
        EXPECT_EQ(plans[i].length, 1u << 20);
        EXPECT_EQ(plans[i].io_limit, 1u << 20);  // one pass: fio's default
    }
}

TEST(JobPlan, RuntimeMeansNoByteLimitUnlessGiven)
{
    BenchOptions o = opts(1);
    o.runtime = std::chrono::seconds(1);
    EXPECT_FALSE(plan_jobs(o, 1 << 20)[0].io_limit);
    o.io_limit = 64 << 10;
    EXPECT_EQ(plan_jobs(o, 1 << 20)[0].io_limit, 64u << 10);
}

TEST(JobPlan, VerifySplitsTheRange)
{
    const auto plans = plan_jobs(opts(3, true), 100 * 4096);  // 33 blocks each, 1 spare
    ASSERT_EQ(plans.size(), 3u);
    for (unsigned i = 0; i < 3; ++i) {
        EXPECT_EQ(plans[i].start, i * 33u * 4096);
        EXPECT_EQ(plans[i].length, 33u * 4096);
        EXPECT_EQ(plans[i].io_limit, 33u * 4096);
    }
}

TEST(JobPlan, VerifyNeedsIodepthBlocksPerJob)
{
    EXPECT_EQ(error_of(opts(2, true), 7 * 4096),
              "--verify needs at least --iodepth (4) blocks per job, got 3: "
              "raise --size or lower --iodepth/--numjobs");
    EXPECT_EQ(error_of(opts(2, true), 8 * 4096), "");
}

TEST(JobPlan, VerifyCapsTrackedBlocks)
{
    EXPECT_EQ(error_of(opts(1, true), (kMaxVerifyBlocks + 1) * 4096),
              "--verify tracks every block: at most 16777216 blocks per job, got 16777217: "
              "lower --size or raise --bs");
}

TEST(JobPlan, OffsetStartsEveryJobsRangeThere)
{
    BenchOptions o = opts(3);
    o.offset = 64 << 20;
    for (const JobPlan& p : plan_jobs(o, 1 << 20)) {
        EXPECT_EQ(p.start, 64u << 20);
        EXPECT_EQ(p.length, 1u << 20);
    }
    // --verify's slices are laid out from it too.
    o = opts(2, true);
    o.offset = 64 << 20;
    const auto plans = plan_jobs(o, 1 << 20);
    ASSERT_EQ(plans.size(), 2u);
    EXPECT_EQ(plans[0].start, 64u << 20);
    EXPECT_EQ(plans[1].start, (64u << 20) + (512u << 10));
    EXPECT_EQ(plans[1].length, 512u << 10);
}

TEST(JobPlan, TargetSmallerThanBlock)
{
    EXPECT_EQ(error_of(opts(1), 100), "the target is smaller than --bs");
}

}  // namespace
}  // namespace rblk::bench
