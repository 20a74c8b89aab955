// Per-second rates between two samples of a controller's counters: what
// `rblkctl stats --watch` prints (IOPS and MiB/s beside in-flight, errors
// and reconnects, which are shown as they are).
#pragma once

#include "rblk/controller.hpp"

namespace rblk {

struct StatsRates {
    double seconds = 0;  // the interval the rates are over
    double read_iops = 0;
    double write_iops = 0;
    double read_bytes_per_s = 0;
    double write_bytes_per_s = 0;

    double iops() const { return read_iops + write_iops; }
    double bytes_per_s() const { return read_bytes_per_s + write_bytes_per_s; }
};

// Rates from `before` to `after`, `seconds` apart. A counter that went
// backwards (the controller was re-created under the same name) counts as
// zero; seconds <= 0 gives all zeros.
StatsRates rates_between(const CtrlStats& before, const CtrlStats& after, double seconds);

}  // namespace rblk
