// rblkctl bench: the io_uring benchmark (librblk's rblk_bench engine).
#pragma once

#include <rblk/bench/options.hpp>

#include <CLI/CLI.hpp>

#include <ostream>

namespace rblkctl {

// Declares `bench` on the app. The subcommand runs when parsed (it needs no
// netlink client); a failure surfaces as CLI::RuntimeError carrying the
// one-line reason, which main() prints as "rblkctl: <reason>".
void add_bench_command(CLI::App& app);

// Validates `args`, runs the bench and prints its report to `out`; verify
// mismatches are listed on `err`, a progress line too when `err` is a TTY.
// Throws std::exception with the reason on any failure.
void run_bench_command(const rblk::bench::BenchArgs& args, std::ostream& out, std::ostream& err,
                       bool progress);

}  // namespace rblkctl
