#include <rblk/bench/units.hpp>

#include <gtest/gtest.h>

namespace rblk::bench {
namespace {

TEST(ParseSize, PlainBytes)
{
    EXPECT_EQ(parse_size("512"), 512u);
    EXPECT_EQ(parse_size("0"), 0u);
    EXPECT_EQ(parse_size("4096b"), 4096u);
}

TEST(ParseSize, SiPrefixesArePowersOfTwoLikeFio)
{
    EXPECT_EQ(parse_size("4k"), 4096u);
    EXPECT_EQ(parse_size("4K"), 4096u);
    EXPECT_EQ(parse_size("4kb"), 4096u);
    EXPECT_EQ(parse_size("64m"), 64u << 20);
    EXPECT_EQ(parse_size("1G"), 1u << 30);
    EXPECT_EQ(parse_size("2t"), std::uint64_t{2} << 40);
    EXPECT_EQ(parse_size("1p"), std::uint64_t{1} << 50);
}

TEST(ParseSize, IecPrefixesArePowersOfTenLikeFioCompatMode)
{
    EXPECT_EQ(parse_size("4KiB"), 4000u);
    EXPECT_EQ(parse_size("1Mi"), 1'000'000u);
}

TEST(ParseSize, RejectsGarbageAndOverflow)
{
    for (const char* bad : {"", "k", "4x", "4kk", "-1", "1.5m", " 4k", "4 k", "99999999999999999999",
                            "20000000p"})
        EXPECT_FALSE(parse_size(bad)) << bad;
}

TEST(ParseSize, OverflowIsToldApartFromGarbage)
{
    bool too_large = true;
    EXPECT_EQ(parse_size("16383p", &too_large), std::uint64_t{16383} << 50);
    EXPECT_FALSE(too_large);
    EXPECT_EQ(parse_size("18446744073709551615", &too_large), UINT64_MAX);
    EXPECT_EQ(parse_size("15t", &too_large), std::uint64_t{15} << 40);
    for (const char* big : {"16384p", "18446744073709551616", "99999999999999999999k", "17179869184g"}) {
        too_large = false;
        EXPECT_FALSE(parse_size(big, &too_large)) << big;
        EXPECT_TRUE(too_large) << big;
    }
    // Garbage, however many digits it starts with, is not "too large".
    for (const char* bad : {"", "m", "-1", "-1m", "200x", "99999999999999999999x", "4kk", "1.5m", "+4k"}) {
        too_large = true;
        EXPECT_FALSE(parse_size(bad, &too_large)) << bad;
        EXPECT_FALSE(too_large) << bad;
    }
}

TEST(ParseDuration, Units)
{
    using namespace std::chrono;
    EXPECT_EQ(parse_duration("10"), seconds(10));
    EXPECT_EQ(parse_duration("10s"), seconds(10));
    EXPECT_EQ(parse_duration("500ms"), milliseconds(500));
    EXPECT_EQ(parse_duration("250us"), microseconds(250));
    EXPECT_EQ(parse_duration("2m"), minutes(2));
    EXPECT_EQ(parse_duration("1h"), hours(1));
    for (const char* bad : {"", "s", "10x", "1.5", "-3", "99999999999h"})
        EXPECT_FALSE(parse_duration(bad)) << bad;
}

TEST(ParseUint, DigitsOnly)
{
    EXPECT_EQ(parse_uint("42"), 42u);
    EXPECT_EQ(parse_uint("18446744073709551615"), UINT64_MAX);
    EXPECT_FALSE(parse_uint("18446744073709551616"));
    EXPECT_FALSE(parse_uint("4k"));
    EXPECT_FALSE(parse_uint(""));
}

TEST(ParseCpuList, RangesAndSingles)
{
    auto r = parse_cpu_list("0-3,6,8-9");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->size(), 3u);
    EXPECT_EQ((*r)[0].first, 0u);
    EXPECT_EQ((*r)[0].last, 3u);
    EXPECT_EQ((*r)[1].first, 6u);
    EXPECT_EQ((*r)[1].last, 6u);
    EXPECT_EQ((*r)[2].last, 9u);
    for (const char* bad : {"", ",", "1,", "3-1", "a", "1-", "-1", "1--2"})
        EXPECT_FALSE(parse_cpu_list(bad)) << bad;
}

TEST(FormatSize, ShortestSpelling)
{
    EXPECT_EQ(format_size(4096), "4k");
    EXPECT_EQ(format_size(1u << 20), "1m");
    EXPECT_EQ(format_size(1536), "1536");
    EXPECT_EQ(format_size(0), "0");
    EXPECT_EQ(parse_size(format_size(std::uint64_t{3} << 40)), std::uint64_t{3} << 40);
}

}  // namespace
}  // namespace rblk::bench
