// How a bench run is shown: a fio-like text summary for people, JSON for
// machines, and the once-a-second progress line.
//
// JSON schema (`rblkctl bench --json`), field names after fio's --output-format=json
// so existing fio parsers mostly work:
//
// {
//   "bench version": 1,
//   "timestamp": <unix seconds>,
//   "global options": { "filename", "rw", "bs", "iodepth", "iodepth_batch_complete_min",
//                       "numjobs", "runtime",
//                       "size", "offset", "io_limit", "ramp_time", "rwmixread", "cpus",
//                       "direct", "verify", "sqpoll", "hipri" }     (strings, as fio)
//   "target": { "kind": "block"|"file"|"bypass", "offset_bytes", "size_bytes",
//               "direct": bool, "created": bool },   the range used: [offset, offset + size)
//   "jobs": [ <job> ... ],          one per --numjobs
//   "aggregate": <job>              all jobs merged ("jobname": "all", "jobid": -1)
// }
// <job> = {
//   "jobname": "bench", "jobid": N, "error": 0 | errno-like 1, "error_message": "...",
//   "job_runtime": ms, "elapsed": s,
//   "usr_cpu", "sys_cpu": CPU time in percent of job_runtime, and "ctx": context
//     switches; of the job's own thread in "jobs", of the whole process (all
//     jobs, io_uring's io-wq and SQPOLL threads) in "aggregate", so the
//     aggregate may exceed 100,
//   "read", "write": <dir>,
//   "verify": { "blocks_checked", "mismatches": N,
//               "errors": [ { "offset", "kind", "expected", "actual" } ] (first 16) }
// }
// <dir> = {
//   "io_bytes", "io_kbytes", "bw_bytes" (B/s), "bw" (KiB/s), "iops" (float),
//   "runtime" (ms), "total_ios",
//   "lat_ns":  { "min", "max", "mean", "stddev", "N",
//                "percentile": { "1.000000": ns, ..., "50.000000": ns, ..., "99.990000": ns } },
//   "clat_ns": same as lat_ns
// }
// Latency is measured from submission to completion. fio splits that into
// slat (submission) and clat; io_uring submission is part of the same
// syscall, so rblk reports the whole as both lat_ns and clat_ns.
#pragma once

#include "rblk/bench/engine.hpp"
#include "rblk/bench/results.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace rblk::bench {

nlohmann::ordered_json to_json(const RunResult& r);
void print_text(std::ostream& out, const RunResult& r);
// "[  3s] read: 612k IOPS, write: 0 IOPS, 2391 MiB/s" (no newline).
std::string progress_line(const ProgressSample& s);

}  // namespace rblk::bench
