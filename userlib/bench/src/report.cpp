#include "rblk/bench/report.hpp"

#include "rblk/bench/units.hpp"

#include <array>
#include <chrono>
#include <cstdio>

namespace rblk::bench {
namespace {

// ordered: keys come out in fio's order (percentiles ascending), not sorted as text.
using json = nlohmann::ordered_json;

// fio's default percentile list.
constexpr std::array<double, 17> kPercentiles = {1,  5,  10, 20, 30, 40,   50,   60,   70,
                                                 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

std::string percentile_key(double p)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6f", p);
    return buf;
}

double per_second(std::uint64_t count, std::uint64_t ns)
{
    return ns ? static_cast<double>(count) * 1e9 / static_cast<double>(ns) : 0.0;
}

json latency_json(const Histogram& h)
{
    json pct = json::object();
    for (double p : kPercentiles)
        pct[percentile_key(p)] = h.percentile(p);
    return {{"min", h.min()},     {"max", h.max()}, {"mean", h.mean()},
            {"stddev", h.stddev()}, {"N", h.count()}, {"percentile", pct}};
}

json dir_json(const DirStats& d, std::uint64_t runtime_ns)
{
    const auto bw = static_cast<std::uint64_t>(per_second(d.bytes, runtime_ns));
    json lat = latency_json(d.lat);
    return {{"io_bytes", d.bytes},
            {"io_kbytes", d.bytes / 1024},
            {"bw_bytes", bw},
            {"bw", bw / 1024},
            {"iops", per_second(d.ios, runtime_ns)},
            {"runtime", runtime_ns / 1'000'000},
            {"total_ios", d.ios},
            {"lat_ns", lat},
            {"clat_ns", lat}};
}

double percent_of(std::uint64_t ns, std::uint64_t runtime_ns)
{
    return runtime_ns ? 100.0 * static_cast<double>(ns) / static_cast<double>(runtime_ns) : 0.0;
}

// `cpu`: the job's thread for a job, the whole process for the aggregate.
json job_json(const JobResult& j, const CpuTime& cpu, const std::string& name, int id)
{
    json errors = json::array();
    for (const auto& m : j.mismatches)
        errors.push_back({{"offset", m.offset},
                          {"kind", mismatch_name(m.kind)},
                          {"expected", m.expected},
                          {"actual", m.actual}});
    return {{"jobname", name},
            {"jobid", id},
            {"error", j.error.empty() ? 0 : 1},
            {"error_message", j.error},
            {"job_runtime", j.runtime_ns / 1'000'000},
            {"elapsed", j.runtime_ns / 1'000'000'000},
            {"usr_cpu", percent_of(cpu.usr_ns, j.runtime_ns)},
            {"sys_cpu", percent_of(cpu.sys_ns, j.runtime_ns)},
            {"ctx", cpu.ctx},
            {"read", dir_json(j.read, j.runtime_ns)},
            {"write", dir_json(j.write, j.runtime_ns)},
            {"verify",
             {{"blocks_checked", j.verified_blocks},
              {"mismatches", j.mismatch_count},
              {"errors", errors}}}};
}

json options_json(const BenchOptions& o)
{
    auto opt = [](const auto& v, auto fmt) { return v ? fmt(*v) : std::string(); };
    auto secs = [](std::chrono::nanoseconds ns) {
        return std::to_string(std::chrono::duration<double>(ns).count());
    };
    std::string cpus;
    for (unsigned c : o.cpus)
        cpus += (cpus.empty() ? "" : ",") + std::to_string(c);
    return {{"filename", o.filename},
            {"rw", mode_name(o.mode)},
            {"bs", format_size(o.block_size)},
            {"iodepth", std::to_string(o.iodepth)},
            {"iodepth_batch_complete_min", std::to_string(o.batch_complete)},
            {"numjobs", std::to_string(o.numjobs)},
            {"runtime", opt(o.runtime, secs)},
            {"size", opt(o.size, format_size)},
            {"offset", format_size(o.offset)},
            {"io_limit", opt(o.io_limit, format_size)},
            {"ramp_time", secs(o.ramp)},
            {"rwmixread", std::to_string(o.rwmixread)},
            {"cpus", cpus},
            {"direct", o.direct ? "1" : "0"},
            {"verify", o.verify ? "1" : "0"},
            {"sqpoll", o.sqpoll ? "1" : "0"},
            {"hipri", o.hipri ? "1" : "0"}};
}

// "612k", "1.20M": fio-style short counts for the progress line.
std::string short_count(std::uint64_t v)
{
    char buf[32];
    if (v >= 10'000'000)
        std::snprintf(buf, sizeof buf, "%.1fM", static_cast<double>(v) / 1e6);
    else if (v >= 10'000)
        std::snprintf(buf, sizeof buf, "%.0fk", static_cast<double>(v) / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
    return buf;
}

void print_dir(std::ostream& out, const char* name, const DirStats& d, std::uint64_t runtime_ns)
{
    if (d.ios == 0)
        return;
    const double iops = per_second(d.ios, runtime_ns);
    const double bw = per_second(d.bytes, runtime_ns);
    const auto& h = d.lat;
    char line[512];
    std::snprintf(line, sizeof line,
                  "  %s: IOPS=%.0f, BW=%.1fMiB/s (%.1fMB/s), io=%.1fMiB, run=%.0fms\n"
                  "    lat (ns): min=%llu, mean=%.0f, stddev=%.0f, max=%llu\n"
                  "    lat percentiles (ns): p50=%llu, p90=%llu, p99=%llu, p99.9=%llu\n",
                  name, iops, bw / 1048576.0, bw / 1e6, static_cast<double>(d.bytes) / 1048576.0,
                  static_cast<double>(runtime_ns) / 1e6, static_cast<unsigned long long>(h.min()),
                  h.mean(), h.stddev(), static_cast<unsigned long long>(h.max()),
                  static_cast<unsigned long long>(h.percentile(50)),
                  static_cast<unsigned long long>(h.percentile(90)),
                  static_cast<unsigned long long>(h.percentile(99)),
                  static_cast<unsigned long long>(h.percentile(99.9)));
    out << line;
}

}  // namespace

nlohmann::ordered_json to_json(const RunResult& r)
{
    json jobs = json::array();
    for (const auto& j : r.jobs)
        jobs.push_back(job_json(j, j.thread, "bench", static_cast<int>(j.id)));
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return {{"bench version", 1},
            {"timestamp", std::chrono::duration_cast<std::chrono::seconds>(now).count()},
            {"global options", options_json(r.options)},
            {"target",
             {{"kind", r.target_kind},
              {"offset_bytes", r.options.offset},
              {"size_bytes", r.target_size},
              {"direct", r.target_direct},
              {"created", r.target_created}}},
            {"jobs", jobs},
            {"aggregate", [&] {
                 const JobResult t = r.total();
                 return job_json(t, t.process, "all", -1);
             }()}};
}

void print_text(std::ostream& out, const RunResult& r)
{
    const auto& o = r.options;
    const JobResult t = r.total();
    out << "bench: rw=" << mode_name(o.mode) << ", bs=" << format_size(o.block_size)
        << ", iodepth=" << o.iodepth << ", numjobs=" << o.numjobs << ", " << r.target_kind
        << " " << o.filename << " (" << format_size(r.target_size)
        << (o.offset ? " at offset " + format_size(o.offset) : "")
        << (r.target_direct ? ", O_DIRECT" : "") << ")\n";
    print_dir(out, "read", t.read, t.runtime_ns);
    print_dir(out, "write", t.write, t.runtime_ns);
    char cpu[200];
    std::snprintf(cpu, sizeof cpu,
                  "  cpu: usr=%.2f%%, sys=%.2f%%, ctx=%llu (process, io_uring workers included)\n",
                  percent_of(t.process.usr_ns, t.runtime_ns),
                  percent_of(t.process.sys_ns, t.runtime_ns),
                  static_cast<unsigned long long>(t.process.ctx));
    out << cpu;
    if (o.verify)
        out << "  verify: " << t.verified_blocks << " blocks checked, " << t.mismatch_count
            << " mismatches\n";
}

std::string progress_line(const ProgressSample& s)
{
    char buf[160];
    std::snprintf(buf, sizeof buf, "[%4.0fs] read: %s IOPS, write: %s IOPS, %.1f MiB/s",
                  s.elapsed_s, short_count(s.read_iops).c_str(), short_count(s.write_iops).c_str(),
                  static_cast<double>(s.bytes_per_s) / 1048576.0);
    return buf;
}

}  // namespace rblk::bench
