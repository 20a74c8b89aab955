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
    EXPECT_EQ(o.batch_complete, 1u);
    EXPECT_EQ(o.rwmixread, 50u);
    EXPECT_FALSE(o.runtime);
    EXPECT_FALSE(o.size);
    EXPECT_FALSE(o.io_limit);
    EXPECT_EQ(o.offset, 0u);
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
    a.batch_complete = "8";
    a.runtime = "10s";
    a.size = "1g";
    a.io_limit = "64m";
    a.offset = "200m";
    a.ramp = "500ms";
    a.cpus = "0-1,3";
    a.rwmixread = "70";
    a.direct = a.verify = a.sqpoll = a.hipri = a.json = true;
    const BenchOptions o = parse_options(a);
    EXPECT_EQ(o.mode, Mode::randrw);
    EXPECT_EQ(o.block_size, 16384u);
    EXPECT_EQ(o.iodepth, 32u);
    EXPECT_EQ(o.numjobs, 4u);
    EXPECT_EQ(o.batch_complete, 8u);
    EXPECT_EQ(o.runtime, std::chrono::seconds(10));
    EXPECT_EQ(o.size, std::uint64_t{1} << 30);
    EXPECT_EQ(o.io_limit, 64u << 20);
    EXPECT_EQ(o.offset, 200u << 20);
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

// Every rule with its exact message: one row each.
struct Rule {
    const char* name;
    void (*mutate)(BenchArgs&);
    const char* message;
};

class OptionRules : public ::testing::TestWithParam<Rule> {};

TEST_P(OptionRules, BrokenRuleGivesItsMessage)
{
    BenchArgs a = valid();
    GetParam().mutate(a);
    EXPECT_EQ(error_of(a), GetParam().message);
}

const Rule kRules[] = {
    {"NoFilename", [](BenchArgs& a) { a.filename.reset(); }, "--filename is required"},
    {"EmptyFilename", [](BenchArgs& a) { a.filename = ""; }, "--filename is required"},
    {"NoRw", [](BenchArgs& a) { a.rw.reset(); },
     "--rw is required (read, write, randread, randwrite, randrw)"},
    {"UnknownRw", [](BenchArgs& a) { a.rw = "trim"; },
     "--rw: unknown mode 'trim' (read, write, randread, randwrite, randrw)"},
    {"BsNotASize", [](BenchArgs& a) { a.bs = "4q"; }, "--bs: '4q' is not a size (e.g. 4k, 64m, 1g)"},
    {"BsBelowSector", [](BenchArgs& a) { a.bs = "256"; },
     "--bs must be a multiple of 512 bytes, got 256"},
    {"BsNotSectorMultiple", [](BenchArgs& a) { a.bs = "1000"; },
     "--bs must be a multiple of 512 bytes, got 1000"},
    {"BsTooLarge", [](BenchArgs& a) { a.bs = "128m"; }, "--bs must be at most 64m, got 128m"},
    {"IodepthZero", [](BenchArgs& a) { a.iodepth = "0"; },
     "--iodepth must be an integer from 1 to 4096, got '0'"},
    {"IodepthTooLarge", [](BenchArgs& a) { a.iodepth = "4097"; },
     "--iodepth must be an integer from 1 to 4096, got '4097'"},
    {"IodepthNotANumber", [](BenchArgs& a) { a.iodepth = "1.5"; },
     "--iodepth must be an integer from 1 to 4096, got '1.5'"},
    {"IodepthNegative", [](BenchArgs& a) { a.iodepth = "-1"; },
     "--iodepth must be an integer from 1 to 4096, got '-1'"},
    {"NumjobsZero", [](BenchArgs& a) { a.numjobs = "0"; },
     "--numjobs must be an integer from 1 to 256, got '0'"},
    {"NumjobsTooMany", [](BenchArgs& a) { a.numjobs = "257"; },
     "--numjobs must be an integer from 1 to 256, got '257'"},
    {"RuntimeNotADuration", [](BenchArgs& a) { a.runtime = "soon"; },
     "--runtime: 'soon' is not a duration (e.g. 10, 10s, 500ms, 2m)"},
    {"RuntimeZero", [](BenchArgs& a) { a.runtime = "0"; }, "--runtime must be greater than 0"},
    {"RampNotADuration", [](BenchArgs& a) { a.ramp = "1x"; },
     "--ramp: '1x' is not a duration (e.g. 10, 10s, 500ms, 2m)"},
    {"SizeNotASize", [](BenchArgs& a) { a.size = "big"; },
     "--size: 'big' is not a size (e.g. 4k, 64m, 1g)"},
    {"SizeBelowBs", [](BenchArgs& a) { a.size = "1k"; }, "--size must be at least --bs (4k)"},
    {"SizeNotBsMultiple", [](BenchArgs& a) { a.size = "6k"; },
     "--size must be a multiple of --bs (4k), got 6144"},
    {"IoLimitNotASize", [](BenchArgs& a) { a.io_limit = "lots"; },
     "--io-limit: 'lots' is not a size (e.g. 4k, 64m, 1g)"},
    {"IoLimitBelowBs", [](BenchArgs& a) { a.io_limit = "512"; },
     "--io-limit must be at least --bs (4k)"},
    {"IoLimitNotBsMultiple", [](BenchArgs& a) { a.io_limit = "10k"; },
     "--io-limit must be a multiple of --bs (4k), got 10240"},
    {"OffsetNotASize", [](BenchArgs& a) { a.offset = "64q"; },
     "--offset: '64q' is not a size (e.g. 4k, 64m, 1g)"},
    {"OffsetNegative", [](BenchArgs& a) { a.offset = "-64m"; },
     "--offset: '-64m' is not a size (e.g. 4k, 64m, 1g)"},
    {"OffsetTooLarge", [](BenchArgs& a) { a.offset = "16384p"; },
     "--offset: '16384p' is too large (at most 18446744073709551615 bytes)"},
    {"OffsetNotBsAligned", [](BenchArgs& a) { a.offset = "6k"; },
     "--offset must be a multiple of --bs (4k), got 6144"},
    {"OffsetNotBsAlignedWithLargeBs",
     [](BenchArgs& a) {
         a.bs = "128k";
         a.offset = "64k";
     },
     "--offset must be a multiple of --bs (128k), got 65536"},
    {"SizeTooLarge", [](BenchArgs& a) { a.size = "99999999999999999999"; },
     "--size: '99999999999999999999' is too large (at most 18446744073709551615 bytes)"},
    {"RwmixreadWithoutRandrw", [](BenchArgs& a) { a.rwmixread = "70"; },
     "--rwmixread only applies to --rw randrw"},
    {"RwmixreadAbove100",
     [](BenchArgs& a) {
         a.rw = "randrw";
         a.rwmixread = "101";
     },
     "--rwmixread must be an integer from 0 to 100, got '101'"},
    {"BatchCompleteZero", [](BenchArgs& a) { a.batch_complete = "0"; },
     "--batch-complete must be an integer from 1 to 1, got '0'"},
    {"BatchCompleteAboveIodepth",
     [](BenchArgs& a) {
         a.iodepth = "32";
         a.batch_complete = "33";
     },
     "--batch-complete must be an integer from 1 to 32, got '33'"},
    {"CpusMalformed", [](BenchArgs& a) { a.cpus = "0-"; },
     "--cpus: '0-' is not a CPU list (e.g. 0-3,6)"},
    {"CpuOutOfRange", [](BenchArgs& a) { a.cpus = "1-1024"; },
     "--cpus: CPU 1024 is out of range (0 to 1023)"},
    // Out of range, and must not try to expand a range that large.
    {"CpuHuge", [](BenchArgs& a) { a.cpus = "0-99999999999"; },
     "--cpus: CPU 99999999999 is out of range (0 to 1023)"},
};

INSTANTIATE_TEST_SUITE_P(EachRule, OptionRules, ::testing::ValuesIn(kRules),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Options, LimitsThemselvesAreAccepted)
{
    BenchArgs a = valid();
    a.bs = "64m";
    a.iodepth = "4096";
    a.batch_complete = "4096";
    a.numjobs = "256";
    a.ramp = "0";  // no warm-up is fine
    a.cpus = "1023";
    EXPECT_EQ(error_of(a), "");
    a.rw = "randrw";
    a.rwmixread = "0";
    EXPECT_EQ(parse_options(a).rwmixread, 0u);
}

// The one parser of byte counts: what bench's options take, read and
// write take too (tool/size_option.cpp), with the same messages.
TEST(Options, ParseSizeOptionIsParseSizeWithAMessage)
{
    EXPECT_EQ(parse_size_option("--offset", "200m"), 200u << 20);
    EXPECT_EQ(parse_size_option("--length", "8M"), 8u << 20);
    EXPECT_EQ(parse_size_option("--length", "4096"), 4096u);
    EXPECT_EQ(parse_size_option("--offset", "2t"), std::uint64_t{2} << 40);
    EXPECT_EQ(parse_size_option("--offset", "1g"), std::uint64_t{1} << 30);
    EXPECT_EQ(parse_size_option("--offset", "3kb"), 3072u);
    EXPECT_EQ(parse_size_option("--offset", "0"), 0u);
    auto message = [](const char* text) {
        try {
            parse_size_option("--offset", text);
        } catch (const OptionError& e) {
            return std::string(e.what());
        }
        return std::string("<parsed>");
    };
    EXPECT_EQ(message("200x"), "--offset: '200x' is not a size (e.g. 4k, 64m, 1g)");
    EXPECT_EQ(message("-512"), "--offset: '-512' is not a size (e.g. 4k, 64m, 1g)");
    EXPECT_EQ(message(""), "--offset: '' is not a size (e.g. 4k, 64m, 1g)");
    EXPECT_EQ(message("20000000p"),
              "--offset: '20000000p' is too large (at most 18446744073709551615 bytes)");
}

TEST(Options, CpusAreASet)
{
    BenchArgs a = valid();
    a.cpus = "3,1,1-2";  // as taskset and fio take it
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
