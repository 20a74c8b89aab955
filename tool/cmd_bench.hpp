// rblkctl bench: the io_uring benchmark (librblk's rblk_bench engine).
#pragma once

#include "request.hpp"

#include <rblk/bench/job_io.hpp>
#include <rblk/bench/options.hpp>

#include <CLI/CLI.hpp>

#include <ostream>

namespace rblkctl {

// Declares `bench` on the app: when parsed, req.bench holds its options
// (already validated: a bad one is a CLI::RuntimeError with the one-line
// reason) and run() carries it out (no netlink client needed).
void add_bench_command(CLI::App& app, Request& req);

// Validates `args`, runs the bench and prints its report to `out`; verify
// mismatches are listed on `err`, a progress line too when `err` is a TTY.
// Throws std::exception with the reason on any failure. With `external`,
// the jobs run on it instead of args.filename (--path bypass).
void run_bench_command(const rblk::bench::BenchArgs& args, std::ostream& out, std::ostream& err,
                       bool progress, const rblk::bench::ExternalTarget* external = nullptr);

}  // namespace rblkctl
