#include "rblk/bench/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace rblk::bench {
namespace {

constexpr std::size_t kBuckets = Histogram::index_of(Histogram::kMaxValue) + 1;

struct Range {
    std::uint64_t low;
    std::uint64_t width;
};

// Inverse of index_of: the values bucket i holds.
Range range_of(std::size_t i)
{
    constexpr std::size_t linear = std::size_t{2} << Histogram::kSubBits;
    if (i < linear)
        return {i, 1};
    const std::size_t shift = (i >> Histogram::kSubBits) - 1;
    const std::uint64_t sub = (i & ((std::size_t{1} << Histogram::kSubBits) - 1)) +
                              (std::uint64_t{1} << Histogram::kSubBits);
    return {sub << shift, std::uint64_t{1} << shift};
}

}  // namespace

Histogram::Histogram() : buckets_(kBuckets, 0) {}

void Histogram::merge(const Histogram& other)
{
    for (std::size_t i = 0; i < kBuckets; ++i)
        buckets_[i] += other.buckets_[i];
    count_ += other.count_;
    sum_ += other.sum_;
    sum_sq_ += other.sum_sq_;
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
}

void Histogram::reset()
{
    *this = Histogram();
}

double Histogram::mean() const
{
    return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
}

double Histogram::stddev() const
{
    if (count_ < 2)
        return 0.0;
    const double n = static_cast<double>(count_);
    const double var = (sum_sq_ - static_cast<double>(sum_) * mean()) / (n - 1);
    return var > 0 ? std::sqrt(var) : 0.0;
}

std::uint64_t Histogram::percentile(double p) const
{
    if (count_ == 0)
        return 0;
    // Nearest rank: the smallest value with at least p% of samples at or below it.
    auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
    rank = std::clamp<std::uint64_t>(rank, 1, count_);
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < kBuckets; ++i) {
        seen += buckets_[i];
        if (seen >= rank) {
            auto [low, width] = range_of(i);
            return std::clamp(low + (width - 1) / 2, min_, max_);
        }
    }
    return max_;
}

}  // namespace rblk::bench
