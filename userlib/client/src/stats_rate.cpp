#include "rblk/stats_rate.hpp"

#include <cstdint>

namespace rblk {
namespace {

double per_second(std::uint64_t before, std::uint64_t after, double seconds)
{
    return after > before ? static_cast<double>(after - before) / seconds : 0.0;
}

}  // namespace

StatsRates rates_between(const CtrlStats& before, const CtrlStats& after, double seconds)
{
    StatsRates r;
    if (seconds <= 0)
        return r;
    r.seconds = seconds;
    r.read_iops = per_second(before.reads, after.reads, seconds);
    r.write_iops = per_second(before.writes, after.writes, seconds);
    r.read_bytes_per_s = per_second(before.read_bytes, after.read_bytes, seconds);
    r.write_bytes_per_s = per_second(before.write_bytes, after.write_bytes, seconds);
    return r;
}

}  // namespace rblk
