#include <rblk/bench/report.hpp>

#include <gtest/gtest.h>

#include <sstream>

namespace rblk::bench {
namespace {

RunResult sample()
{
    RunResult r;
    r.options.filename = "/dev/rblk0n1";
    r.options.mode = Mode::randrw;
    r.options.iodepth = 32;
    r.target_kind = "block";
    r.target_size = 1 << 30;
    for (unsigned id = 0; id < 2; ++id) {
        JobResult j;
        j.id = id;
        j.runtime_ns = 2'000'000'000;  // 2 s
        j.thread = {500'000'000, 1'000'000'000, 7};
        j.process = {600'000'000, 3'000'000'000, 9};
        for (std::uint64_t i = 1; i <= 1000; ++i) {
            j.read.lat.record(i * 1000);
            ++j.read.ios;
            j.read.bytes += 4096;
        }
        j.write.ios = 10;
        j.write.bytes = 40960;
        r.jobs.push_back(std::move(j));
    }
    r.jobs[1].mismatch_count = 1;
    r.jobs[1].mismatches.push_back({0x2000, MismatchKind::crc, 1, 2});
    return r;
}

TEST(Report, JsonUsesFiosFieldNames)
{
    const auto j = to_json(sample());
    const auto& read = j.at("jobs").at(0).at("read");
    EXPECT_DOUBLE_EQ(read.at("iops").get<double>(), 500.0);
    EXPECT_EQ(read.at("bw_bytes").get<std::uint64_t>(), 2048000u);
    EXPECT_EQ(read.at("bw").get<std::uint64_t>(), 2000u);
    EXPECT_EQ(read.at("io_bytes").get<std::uint64_t>(), 4096000u);
    EXPECT_EQ(read.at("total_ios").get<std::uint64_t>(), 1000u);
    EXPECT_EQ(read.at("runtime").get<std::uint64_t>(), 2000u);
    EXPECT_NEAR(read.at("lat_ns").at("mean").get<double>(), 500'500.0, 1e-6);
    const auto p50 = read.at("clat_ns").at("percentile").at("50.000000").get<double>();
    EXPECT_NEAR(p50, 500'000.0, 500'000.0 * 0.01);
    EXPECT_TRUE(read.at("clat_ns").at("percentile").contains("99.990000"));
    EXPECT_EQ(read.at("lat_ns").at("N").get<std::uint64_t>(), 1000u);
    EXPECT_DOUBLE_EQ(j.at("jobs").at(0).at("usr_cpu").get<double>(), 25.0);
    EXPECT_EQ(j.at("jobs").at(0).at("ctx").get<int>(), 7);
    EXPECT_DOUBLE_EQ(j.at("jobs").at(0).at("sys_cpu").get<double>(), 50.0);
    EXPECT_EQ(j.at("jobs").at(0).at("job_runtime").get<std::uint64_t>(), 2000u);
    EXPECT_EQ(j.at("global options").at("rw"), "randrw");
    EXPECT_EQ(j.at("global options").at("iodepth"), "32");
    EXPECT_EQ(j.at("target").at("kind"), "block");
    EXPECT_EQ(j.at("global options").at("offset"), "0");
    EXPECT_EQ(j.at("target").at("offset_bytes").get<std::uint64_t>(), 0u);
}

TEST(Report, OffsetInJsonAndText)
{
    RunResult r = sample();
    r.options.offset = 64 << 20;
    const auto j = to_json(r);
    EXPECT_EQ(j.at("global options").at("offset"), "64m");
    EXPECT_EQ(j.at("target").at("offset_bytes").get<std::uint64_t>(), 64u << 20);
    EXPECT_EQ(j.at("target").at("size_bytes").get<std::uint64_t>(), 1u << 30);
    std::ostringstream out;
    print_text(out, r);
    EXPECT_NE(out.str().find(" /dev/rblk0n1 (1g at offset 64m)\n"), std::string::npos) << out.str();
}

TEST(Report, AggregateSumsJobs)
{
    const auto j = to_json(sample());
    const auto& all = j.at("aggregate");
    EXPECT_EQ(all.at("jobid").get<int>(), -1);
    EXPECT_DOUBLE_EQ(all.at("read").at("iops").get<double>(), 1000.0);
    EXPECT_EQ(all.at("read").at("clat_ns").at("N").get<std::uint64_t>(), 2000u);
    // The process's CPU: the io_uring workers' time is in there too.
    EXPECT_DOUBLE_EQ(all.at("usr_cpu").get<double>(), 30.0);
    EXPECT_DOUBLE_EQ(all.at("sys_cpu").get<double>(), 150.0);
    EXPECT_EQ(all.at("ctx").get<int>(), 9);
    EXPECT_EQ(all.at("verify").at("mismatches").get<std::uint64_t>(), 1u);
    EXPECT_EQ(all.at("verify").at("errors").at(0).at("kind"), "crc32c mismatch");
    EXPECT_EQ(all.at("verify").at("errors").at(0).at("offset").get<std::uint64_t>(), 0x2000u);
}

TEST(Report, TextSummary)
{
    std::ostringstream out;
    print_text(out, sample());
    const std::string s = out.str();
    EXPECT_NE(s.find("rw=randrw"), std::string::npos) << s;
    EXPECT_NE(s.find("read: IOPS=1000,"), std::string::npos) << s;
    EXPECT_NE(s.find("write: IOPS=10,"), std::string::npos) << s;
    EXPECT_NE(s.find("p99.9="), std::string::npos) << s;
    EXPECT_NE(s.find("cpu: usr=30.00%, sys=150.00%, ctx=9 (process"), std::string::npos) << s;
}

TEST(Report, ProgressLine)
{
    EXPECT_EQ(progress_line({3.0, 612'345, 0, 2'508'000'000}),
              "[   3s] read: 612k IOPS, write: 0 IOPS, 2391.8 MiB/s");
}

}  // namespace
}  // namespace rblk::bench
