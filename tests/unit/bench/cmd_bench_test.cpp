// `rblkctl bench` through the real command line: the wiring of options to
// the engine, the one-line failure reasons and the verify failure path.
#include "temp_target.hpp"

#include <cli.hpp>
#include <cmd_bench.hpp>
#include <commands.hpp>
#include <exit_codes.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

namespace rblkctl {
namespace {

using rblk::bench::testing::TempDir;

// Parses argv as rblkctl would; returns the error CLI11 raised ("" if none).
std::string parse_error(std::vector<std::string> argv)
{
    argv.insert(argv.begin(), "rblkctl");
    Cli cli;
    try {
        cli.parse(argv);
    } catch (const CLI::ParseError& e) {
        return e.what();
    }
    return "";
}

// Parses argv and runs what it asks for, as rblkctl's main() does.
std::string run_error(std::vector<std::string> argv, std::ostream& out)
{
    argv.insert(argv.begin(), "rblkctl");
    Cli cli;
    try {
        cli.parse(argv);
        run(cli.request(), out);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

rblk::bench::BenchArgs args(const std::string& file, const std::string& rw)
{
    rblk::bench::BenchArgs a;
    a.filename = file;
    a.rw = rw;
    a.size = "256k";
    a.iodepth = "4";
    return a;
}

TEST(CmdBench, BadInputIsOneLineAndAUsageError)
{
    EXPECT_EQ(parse_error({"bench", "--rw", "randread"}), "--filename is required");
    // rblkctl's exit status for it is a usage error's, as for CLI11's own.
    std::ostringstream out, err;
    EXPECT_EQ(run_main({"rblkctl", "bench", "--filename", "/x", "--rw", "sideways"}, out, err,
                       [](const Request&, std::ostream&) { return 0; }),
              kExitUsage);
    EXPECT_EQ(err.str(),
              "rblkctl: --rw: unknown mode 'sideways' (read, write, randread, randwrite, randrw)\n");
    EXPECT_EQ(parse_error({"bench", "--filename", "/x", "--rw", "randread", "--iodepth", "0"}),
              "--iodepth must be an integer from 1 to 4096, got '0'");
    EXPECT_EQ(parse_error({"bench", "--filename", "/x", "--rw", "sideways"}),
              "--rw: unknown mode 'sideways' (read, write, randread, randwrite, randrw)");
    EXPECT_NE(parse_error({"bench", "--no-such-option"}), "");
}

TEST(CmdBench, RunsFromTheCommandLine)
{
    TempDir dir;
    std::ostringstream os;
    const std::string err = run_error({"bench", "--filename", dir.path("f"), "--rw", "randrw",
                                       "--rwmixread", "70", "--bs", "8k", "--iodepth", "4",
                                       "--size", "1m", "--io-limit", "512k", "--json"},
                                      os);
    const std::string out = os.str();
    ASSERT_EQ(err, "");
    const auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j.at("global options").at("bs"), "8k");
    EXPECT_EQ(j.at("global options").at("rwmixread"), "70");
    const auto& all = j.at("aggregate");
    EXPECT_EQ(all.at("read").at("total_ios").get<int>() + all.at("write").at("total_ios").get<int>(),
              64);
}

TEST(CmdBench, OffsetFromTheCommandLineInTheJson)
{
    TempDir dir;
    std::ostringstream os;
    const std::string err = run_error({"bench", "--filename", dir.path("f"), "--rw", "write", "--bs", "8k",
                                       "--size", "256k", "--offset", "1m", "--json"},
                                      os);
    ASSERT_EQ(err, "");
    const auto j = nlohmann::json::parse(os.str());
    EXPECT_EQ(j.at("global options").at("offset"), "1m");
    EXPECT_EQ(j.at("target").at("offset_bytes").get<std::uint64_t>(), 1u << 20);
    EXPECT_EQ(j.at("target").at("size_bytes").get<std::uint64_t>(), 256u << 10);
    EXPECT_EQ(j.at("aggregate").at("write").at("total_ios").get<int>(), 32);
    EXPECT_EQ(std::filesystem::file_size(dir.path("f")), (1u << 20) + (256u << 10));
}

TEST(CmdBench, TextReportByDefault)
{
    TempDir dir;
    std::ostringstream out, err;
    run_bench_command(args(dir.path("f"), "write"), out, err, false);
    EXPECT_EQ(out.str().rfind("bench: rw=write, bs=4k, iodepth=4, numjobs=1, file ", 0), 0u)
        << out.str();
    EXPECT_NE(out.str().find("write: IOPS="), std::string::npos);
    EXPECT_EQ(err.str(), "");
}

TEST(CmdBench, VerifyMismatchListsOffsetsAndFails)
{
    TempDir dir;
    const std::string file = dir.path("f");
    std::ostringstream out, err;
    auto w = args(file, "write");
    w.verify = true;
    run_bench_command(w, out, err, false);
    rblk::bench::testing::scribble(file, 12 * 4096 + 100, 8, 0x5A);

    auto r = args(file, "read");
    r.verify = true;
    try {
        run_bench_command(r, out, err, false);
        FAIL() << "a corrupted block must fail the run";
    } catch (const std::exception& e) {
        EXPECT_STREQ(e.what(), "verify failed: 1 of 64 blocks checked did not match");
    }
    EXPECT_EQ(err.str().rfind("rblkctl: verify: offset 0xc000: crc32c mismatch: expected 0x", 0), 0u)
        << err.str();
}

TEST(CmdBench, TargetProblemsAreReasons)
{
    TempDir dir;
    std::ostringstream out, err;
    auto a = args(dir.path("absent"), "read");
    a.size.reset();
    try {
        run_bench_command(a, out, err, false);
        FAIL();
    } catch (const std::exception& e) {
        EXPECT_EQ(std::string(e.what()), dir.path("absent") + " does not exist: give --size to create it");
    }
}

}  // namespace
}  // namespace rblkctl
