// Per-second rates between two counter samples (rblk/stats_rate.hpp).
#include <rblk/stats_rate.hpp>

#include <gtest/gtest.h>

namespace rblk {
namespace {

TEST(StatsRate, DeltasOverTheInterval)
{
    const CtrlStats before{100, 10, 409600, 40960, 0, 0, 0};
    const CtrlStats after{300, 50, 1228800, 204800, 1, 0, 4};
    const StatsRates r = rates_between(before, after, 2.0);
    EXPECT_DOUBLE_EQ(r.seconds, 2.0);
    EXPECT_DOUBLE_EQ(r.read_iops, 100.0);
    EXPECT_DOUBLE_EQ(r.write_iops, 20.0);
    EXPECT_DOUBLE_EQ(r.iops(), 120.0);
    EXPECT_DOUBLE_EQ(r.read_bytes_per_s, 409600.0);
    EXPECT_DOUBLE_EQ(r.write_bytes_per_s, 81920.0);
    EXPECT_DOUBLE_EQ(r.bytes_per_s(), 491520.0);
}

TEST(StatsRate, CountersThatWentBackwardsCountAsZero)
{
    // The controller was deleted and another took its name: fresh counters.
    const StatsRates r = rates_between({500, 500, 1 << 20, 1 << 20}, {5, 600, 100, 2 << 20}, 1.0);
    EXPECT_DOUBLE_EQ(r.read_iops, 0.0);
    EXPECT_DOUBLE_EQ(r.write_iops, 100.0);
    EXPECT_DOUBLE_EQ(r.read_bytes_per_s, 0.0);
    EXPECT_DOUBLE_EQ(r.write_bytes_per_s, double(1 << 20));
}

TEST(StatsRate, NoTimeNoRate)
{
    const StatsRates r = rates_between({}, {10, 10, 10, 10}, 0.0);
    EXPECT_DOUBLE_EQ(r.seconds, 0.0);
    EXPECT_DOUBLE_EQ(r.iops(), 0.0);
    EXPECT_DOUBLE_EQ(r.bytes_per_s(), 0.0);
}

}  // namespace
}  // namespace rblk
