// Latency histogram, log-linear like HdrHistogram: values below 256 ns get a
// bucket each; above, every power-of-two range [2^k, 2^(k+1)) is cut into 128
// equal sub-buckets. A bucket is at most 1/128 of its lowest value wide and
// reports its midpoint, so any percentile is within 0.4% of the exact one.
// record() is a count-leading-zeros and an increment: cheap per I/O.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace rblk::bench {

class Histogram {
public:
    static constexpr unsigned kSubBits = 7;                  // 128 sub-buckets
    static constexpr unsigned kMaxBits = 42;                 // values clamp at ~73 minutes
    static constexpr std::uint64_t kMaxValue = (std::uint64_t{1} << kMaxBits) - 1;
    static constexpr double kMaxRelativeError = 1.0 / (2u << kSubBits);

    Histogram();

    void record(std::uint64_t ns)
    {
        if (ns > kMaxValue)
            ns = kMaxValue;
        ++buckets_[index_of(ns)];
        ++count_;
        sum_ += ns;
        sum_sq_ += static_cast<double>(ns) * static_cast<double>(ns);
        if (ns < min_)
            min_ = ns;
        if (ns > max_)
            max_ = ns;
    }

    void merge(const Histogram& other);
    void reset();

    std::uint64_t count() const { return count_; }
    std::uint64_t min() const { return count_ ? min_ : 0; }
    std::uint64_t max() const { return max_; }
    double mean() const;
    double stddev() const;
    // Nearest-rank percentile, p in [0, 100]; 0 when empty.
    std::uint64_t percentile(double p) const;

    static constexpr std::size_t index_of(std::uint64_t v)
    {
        constexpr unsigned linear_bits = kSubBits + 1;  // [0, 256) is exact
        if (v < (std::uint64_t{1} << linear_bits))
            return static_cast<std::size_t>(v);
        const unsigned shift = static_cast<unsigned>(std::bit_width(v)) - linear_bits;
        return ((shift + 1) << kSubBits) + static_cast<std::size_t>(v >> shift) -
               (std::size_t{1} << kSubBits);
    }

private:
    std::vector<std::uint64_t> buckets_;
    std::uint64_t count_ = 0;
    std::uint64_t sum_ = 0;
    double sum_sq_ = 0;
    std::uint64_t min_ = UINT64_MAX;
    std::uint64_t max_ = 0;
};

}  // namespace rblk::bench
