// rblkctl's exit status, stable for scripts (and documented in README.md and
// the --help footer): the one place the numbers are defined.
#pragma once

namespace rblkctl {

inline constexpr int kExitOk = 0;
// The command ran and failed: the kernel refused, a file was unreadable,
// a session of apply failed.
inline constexpr int kExitFailure = 1;
// The command line was wrong (any CLI11 parse or validation error, a typo):
// nothing was attempted. As getopt-based tools and systemctl use 2.
inline constexpr int kExitUsage = 2;
// The generic netlink family "rblk" is absent (rblk::ModuleNotLoaded): a
// script can modprobe and retry on this one.
inline constexpr int kExitModuleNotLoaded = 3;

// The --help footer listing the codes above.
inline constexpr const char* kExitStatusHelp =
    "Exit status: 0 success, 1 failure, 2 usage error, 3 rblk module not loaded "
    "(modprobe rblk).";

}  // namespace rblkctl
