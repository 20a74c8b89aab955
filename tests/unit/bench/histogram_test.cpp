#include <rblk/bench/histogram.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace rblk::bench {
namespace {

// Nearest-rank percentile of sorted data: the definition Histogram follows.
std::uint64_t exact_percentile(const std::vector<std::uint64_t>& sorted, double p)
{
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

void expect_accurate(std::vector<std::uint64_t> values)
{
    Histogram h;
    for (auto v : values)
        h.record(v);
    std::sort(values.begin(), values.end());
    for (double p : {1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.5, 99.9, 99.99, 100.0}) {
        const double exact = static_cast<double>(exact_percentile(values, p));
        const double got = static_cast<double>(h.percentile(p));
        EXPECT_LE(std::abs(got - exact), 0.01 * exact) << "p" << p << " exact " << exact << " got " << got;
        EXPECT_LE(std::abs(got - exact), Histogram::kMaxRelativeError * exact + 0.5)
            << "p" << p;
    }
    EXPECT_EQ(h.count(), values.size());
    EXPECT_EQ(h.min(), values.front());
    EXPECT_EQ(h.max(), values.back());
    const double mean = std::accumulate(values.begin(), values.end(), 0.0) /
                        static_cast<double>(values.size());
    EXPECT_NEAR(h.mean(), mean, 1e-9 * mean);
}

TEST(Histogram, LogUniformLatencies)
{
    std::mt19937_64 gen(1);
    std::uniform_real_distribution<double> exp10(1.0, 10.0);  // 10 ns .. 10 s
    std::vector<std::uint64_t> v(200'000);
    for (auto& x : v)
        x = static_cast<std::uint64_t>(std::pow(10.0, exp10(gen)));
    expect_accurate(v);
}

TEST(Histogram, LognormalAroundFiftyMicroseconds)
{
    std::mt19937_64 gen(2);
    std::lognormal_distribution<double> d(std::log(50'000.0), 0.6);
    std::vector<std::uint64_t> v(100'000);
    for (auto& x : v)
        x = static_cast<std::uint64_t>(d(gen));
    expect_accurate(v);
}

TEST(Histogram, SmallValuesAreExact)
{
    std::mt19937_64 gen(3);
    std::uniform_int_distribution<std::uint64_t> d(0, 255);
    std::vector<std::uint64_t> v(10'000);
    for (auto& x : v)
        x = d(gen);
    Histogram h;
    for (auto x : v)
        h.record(x);
    std::sort(v.begin(), v.end());
    for (double p : {1.0, 33.0, 50.0, 99.0})
        EXPECT_EQ(h.percentile(p), exact_percentile(v, p));
}

TEST(Histogram, BucketsAreContiguousAndNarrowEnough)
{
    // Every value maps to a bucket no wider than 1/128 of the value, and the
    // index never goes backwards: checked at every power-of-two edge.
    for (unsigned k = 8; k < Histogram::kMaxBits; ++k) {
        const std::uint64_t edge = std::uint64_t{1} << k;
        EXPECT_EQ(Histogram::index_of(edge), Histogram::index_of(edge - 1) + 1) << k;
        const std::uint64_t width = edge >> Histogram::kSubBits;
        EXPECT_EQ(Histogram::index_of(edge + width - 1), Histogram::index_of(edge)) << k;
        EXPECT_EQ(Histogram::index_of(edge + width), Histogram::index_of(edge) + 1) << k;
    }
}

TEST(Histogram, MergeAndReset)
{
    Histogram a, b;
    a.record(100);
    a.record(300);
    b.record(5'000'000);
    a.merge(b);
    EXPECT_EQ(a.count(), 3u);
    EXPECT_EQ(a.min(), 100u);
    EXPECT_EQ(a.max(), 5'000'000u);
    EXPECT_NEAR(a.percentile(100), 5'000'000.0, 5'000'000.0 * Histogram::kMaxRelativeError);
    a.reset();
    EXPECT_EQ(a.count(), 0u);
    EXPECT_EQ(a.percentile(50), 0u);
    EXPECT_EQ(a.min(), 0u);
    EXPECT_EQ(a.mean(), 0.0);
}

TEST(Histogram, HugeValuesClamp)
{
    Histogram h;
    h.record(UINT64_MAX);
    EXPECT_EQ(h.max(), Histogram::kMaxValue);
    EXPECT_EQ(h.percentile(50), Histogram::kMaxValue);
}

TEST(Histogram, Stddev)
{
    Histogram h;
    for (std::uint64_t v : {1000u, 2000u, 3000u})
        h.record(v);
    EXPECT_NEAR(h.stddev(), 1000.0, 1e-6);
}

}  // namespace
}  // namespace rblk::bench
