// Fast per-job random numbers: xoshiro256** seeded through splitmix64. Not
// cryptographic; uniform enough that offsets cover the range evenly.
#pragma once

#include <cstdint>

namespace rblk::bench {

class Xoshiro256 {
public:
    explicit Xoshiro256(std::uint64_t seed)
    {
        for (auto& word : s_)
            word = splitmix64(seed);
    }

    std::uint64_t next()
    {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }

    // Uniform in [0, bound), bound > 0: Lemire's multiply-shift with the
    // rejection step, so no value is favoured.
    std::uint64_t below(std::uint64_t bound)
    {
        unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
        auto low = static_cast<std::uint64_t>(m);
        if (low < bound) {
            const std::uint64_t threshold = -bound % bound;
            while (low < threshold) {
                m = static_cast<unsigned __int128>(next()) * bound;
                low = static_cast<std::uint64_t>(m);
            }
        }
        return static_cast<std::uint64_t>(m >> 64);
    }

    static std::uint64_t splitmix64(std::uint64_t& state)
    {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t s_[4];
};

}  // namespace rblk::bench
