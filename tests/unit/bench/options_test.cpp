#include <rblk/bench/options.hpp>

#include <gtest/gtest.h>

namespace rblk::bench {
namespace {

BenchArgs valid()
{
    BenchArgs a;
    a.filename = "/dev/null";
    a.rw = "randread";
    return a;
}

// The exact message of the first rule `a` breaks ("" when it is valid).
std::string error_of(const BenchArgs& a)
{
    try {
        parse_options(a);
    } catch (const OptionError& e) {
        return e.what();
    }
    return "";
}

TEST(Options, DefaultsAreFios)
{
    const BenchOptions o = parse_options(valid());
    EXPECT_EQ(o.mode, Mode::randread);
    EXPECT_EQ(o.block_size, 4096u);
    EXPECT_EQ(o.iodepth, 1u);
    EXPECT_EQ(o.numjobs, 1u);
    EXPECT_EQ(o.rwmixread, 50u);
    EXPECT_FALSE(o.runtime);
    EXPECT_FALSE(o.size);
    EXPECT_FALSE(o.io_limit);
    EXPECT_EQ(o.ramp.count(), 0);
    EXPECT_TRUE(o.cpus.empty());
}

TEST(Options, EverythingParsed)
{
    BenchArgs a = valid();
    a.rw = "randrw";
    a.bs = "16k";
    a.iodepth = "32";
    a.numjobs = "4";
    a.runtime = "10s";
    a.size = "1g";
    a.io_limit = "64m";
    a.ramp = "500ms";
    a.cpus = "0-1,3";
    a.rwmixread = "70";
    a.direct = a.verify = a.sqpoll = a.hipri = a.json = true;
    const BenchOptions o = parse_options(a);
    EXPECT_EQ(o.mode, Mode::randrw);
    EXPECT_EQ(o.block_size, 16384u);
    EXPECT_EQ(o.iodepth, 32u);
    EXPECT_EQ(o.numjobs, 4u);
    EXPECT_EQ(o.runtime, std::chrono::seconds(10));
    EXPECT_EQ(o.size, std::uint64_t{1} << 30);
    EXPECT_EQ(o.io_limit, 64u << 20);
    EXPECT_EQ(o.ramp, std::chrono::milliseconds(500));
    EXPECT_EQ(o.cpus, (std::vector<unsigned>{0, 1, 3}));
    EXPECT_EQ(o.rwmixread, 70u);
    EXPECT_TRUE(o.direct && o.verify && o.sqpoll && o.hipri && o.json);
}

TEST(Options, AllModes)
{
    for (auto [name, mode] : {std::pair{"read", Mode::read}, {"write", Mode::write},
                              {"randread", Mode::randread}, {"randwrite", Mode::randwrite},
                              {"randrw", Mode::randrw}}) {
        BenchArgs a = valid();
        a.rw = name;
        EXPECT_EQ(parse_options(a).mode, mode);
        EXPECT_EQ(mode_name(mode), name);
    }
    EXPECT_TRUE(mode_reads(Mode::randrw) && mode_writes(Mode::randrw));
    EXPECT_FALSE(mode_writes(Mode::read));
    EXPECT_FALSE(mode_reads(Mode::randwrite));
    EXPECT_FALSE(mode_random(Mode::write));
}

TEST(Options, FilenameRequired)
{
    BenchArgs a = valid();
    a.filename.reset();
    EXPECT_EQ(error_of(a), "--filename is required");
    a.filename = "";
    EXPECT_EQ(error_of(a), "--filename is required");
}

TEST(Options, RwRequiredAndKnown)
{
    BenchArgs a = valid();
    a.rw.reset();
    EXPECT_EQ(error_of(a), "--rw is required (read, write, randread, randwrite, randrw)");
    a.rw = "trim";
    EXPECT_EQ(error_of(a), "--rw: unknown mode 'trim' (read, write, randread, randwrite, randrw)");
}

TEST(Options, BlockSize)
{
    BenchArgs a = valid();
    a.bs = "4q";
    EXPECT_EQ(error_of(a), "--bs: '4q' is not a size (e.g. 4k, 64m, 1g)");
    a.bs = "256";
    EXPECT_EQ(error_of(a), "--bs must be a multiple of 512 bytes, got 256");
    a.bs = "1000";
    EXPECT_EQ(error_of(a), "--bs must be a multiple of 512 bytes, got 1000");
    a.bs = "128m";
    EXPECT_EQ(error_of(a), "--bs must be at most 64m, got 128m");
    a.bs = "64m";
    EXPECT_EQ(error_of(a), "");
}

TEST(Options, Iodepth)
{
    BenchArgs a = valid();
    for (const char* bad : {"0", "4097", "x", "-1", "1.5"}) {
        a.iodepth = bad;
        EXPECT_EQ(error_of(a), std::string("--iodepth must be an integer from 1 to 4096, got '") +
                                   bad + "'");
    }
    a.iodepth = "4096";
    EXPECT_EQ(error_of(a), "");
}

TEST(Options, Numjobs)
{
    BenchArgs a = valid();
    a.numjobs = "0";
    EXPECT_EQ(error_of(a), "--numjobs must be an integer from 1 to 256, got '0'");
    a.numjobs = "257";
    EXPECT_EQ(error_of(a), "--numjobs must be an integer from 1 to 256, got '257'");
}

TEST(Options, Runtime)
{
    BenchArgs a = valid();
    a.runtime = "soon";
    EXPECT_EQ(error_of(a), "--runtime: 'soon' is not a duration (e.g. 10, 10s, 500ms, 2m)");
    a.runtime = "0";
    EXPECT_EQ(error_of(a), "--runtime must be greater than 0");
}

TEST(Options, Ramp)
{
    BenchArgs a = valid();
    a.ramp = "1x";
    EXPECT_EQ(error_of(a), "--ramp: '1x' is not a duration (e.g. 10, 10s, 500ms, 2m)");
    a.ramp = "0";  // no warm-up is fine
    EXPECT_EQ(error_of(a), "");
}

TEST(Options, Size)
{
    BenchArgs a = valid();
    a.size = "big";
    EXPECT_EQ(error_of(a), "--size: 'big' is not a size (e.g. 4k, 64m, 1g)");
    a.size = "1k";
    EXPECT_EQ(error_of(a), "--size must be at least --bs (4k)");
    a.size = "6k";
    EXPECT_EQ(error_of(a), "--size must be a multiple of --bs (4k), got 6144");
}

TEST(Options, IoLimit)
{
    BenchArgs a = valid();
    a.io_limit = "lots";
    EXPECT_EQ(error_of(a), "--io-limit: 'lots' is not a size (e.g. 4k, 64m, 1g)");
    a.io_limit = "512";
    EXPECT_EQ(error_of(a), "--io-limit must be at least --bs (4k)");
    a.io_limit = "10k";
    EXPECT_EQ(error_of(a), "--io-limit must be a multiple of --bs (4k), got 10240");
}

TEST(Options, Rwmixread)
{
    BenchArgs a = valid();
    a.rwmixread = "70";
    EXPECT_EQ(error_of(a), "--rwmixread only applies to --rw randrw");
    a.rw = "randrw";
    a.rwmixread = "101";
    EXPECT_EQ(error_of(a), "--rwmixread must be an integer from 0 to 100, got '101'");
    a.rwmixread = "0";
    EXPECT_EQ(parse_options(a).rwmixread, 0u);
}

TEST(Options, Cpus)
{
    BenchArgs a = valid();
    a.cpus = "0-";
    EXPECT_EQ(error_of(a), "--cpus: '0-' is not a CPU list (e.g. 0-3,6)");
    a.cpus = "1-1024";
    EXPECT_EQ(error_of(a), "--cpus: CPU 1024 is out of range (0 to 1023)");
    a.cpus = "99999999999";  // out of range, and must not try to expand the range
    EXPECT_EQ(error_of(a), "--cpus: CPU 99999999999 is out of range (0 to 1023)");
    a.cpus = "3,1,1-2";  // a set, as taskset and fio take it
    EXPECT_EQ(parse_options(a).cpus, (std::vector<unsigned>{1, 2, 3}));
}

TEST(Options, FirstBrokenRuleWins)
{
    BenchArgs a;
    a.bs = "bad";
    EXPECT_EQ(error_of(a), "--filename is required");
}

}  // namespace
}  // namespace rblk::bench
