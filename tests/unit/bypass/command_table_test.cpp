// Completion checks: the command id encoding is the module's (kmod/shared/cid.h,
// the cases of tests/unit/kmod/logic_test.cpp's Cid test), and every kind
// of bad completion the module refuses is refused here.
#include <rblk/bypass/command_table.hpp>

#include <gtest/gtest.h>

#include <set>

namespace rblk::bypass {
namespace {

using Clock = CommandTable::Clock;

TEST(CommandTable, CidIsTagAndGenerationOfTheModule)
{
    // The module's cases: tag | gen << 12, the generation in 4 bits.
    CommandTable t(4096);
    std::set<std::uint16_t> tags;
    for (int i = 0; i < 4096; ++i) {
        const auto tag = t.acquire();
        ASSERT_TRUE(tag);
        tags.insert(*tag);
        EXPECT_EQ(*tag, t.cid(*tag) & 0xfff);
        EXPECT_EQ(1, t.cid(*tag) >> 12);  // first submission: generation 1
    }
    EXPECT_EQ(4096u, tags.size());
    EXPECT_FALSE(t.acquire());  // full
    EXPECT_THROW(CommandTable(4097), std::invalid_argument);
    EXPECT_THROW(CommandTable(0), std::invalid_argument);
}

TEST(CommandTable, GenerationWrapsInFourBits)
{
    CommandTable t(1);
    std::uint16_t first = 0;
    for (int i = 0; i < 17; ++i) {
        const auto tag = t.acquire();
        ASSERT_TRUE(tag);
        if (i == 0)
            first = t.cid(*tag);
        if (i == 16) {
            EXPECT_EQ(first, t.cid(*tag));  // 17 submissions: back to the same id
        }
        if (i == 15) {
            EXPECT_EQ(0x0000, t.cid(*tag));  // generation 16 & 0xf = 0
        }
        t.release(*tag);
    }
}

TEST(CommandTable, OkOnceThenDuplicate)
{
    CommandTable t(8);
    const auto tag = *t.acquire();
    const std::uint16_t cid = t.cid(tag);
    std::uint16_t got = 0xffff;
    EXPECT_EQ(CqeVerdict::Ok, t.on_response(cid, got));
    EXPECT_EQ(tag, got);
    EXPECT_TRUE(t.responded(tag));
    EXPECT_FALSE(t.finished(tag));  // its SEND has not completed yet
    t.on_send_done(tag);
    EXPECT_TRUE(t.finished(tag));
    EXPECT_EQ(CqeVerdict::Duplicate, t.on_response(cid, got));
    t.release(tag);
    // After the release, the same id names no command in flight.
    EXPECT_EQ(CqeVerdict::UnknownCid, t.on_response(cid, got));
}

TEST(CommandTable, UnknownAndStale)
{
    CommandTable t(8);
    std::uint16_t got = 0;
    EXPECT_EQ(CqeVerdict::UnknownCid, t.on_response(0x0003, got));  // nothing in flight
    EXPECT_EQ(CqeVerdict::UnknownCid, t.on_response(0x0009, got));  // tag beyond the depth
    EXPECT_EQ(CqeVerdict::UnknownCid, t.on_response(0xffff, got));
    const auto tag = *t.acquire();
    const std::uint16_t cid = t.cid(tag);
    t.on_send_done(tag);
    ASSERT_EQ(CqeVerdict::Ok, t.on_response(cid, got));
    t.release(tag);
    // Resubmitted at the same tag: the old id is stale, the new one good.
    const auto again = *t.acquire();
    ASSERT_EQ(tag, again);
    EXPECT_NE(cid, t.cid(again));
    EXPECT_EQ(CqeVerdict::StaleGeneration, t.on_response(cid, got));
    EXPECT_FALSE(t.responded(again));
    EXPECT_EQ(CqeVerdict::Ok, t.on_response(t.cid(again), got));
}

TEST(CommandTable, SendCompletionFirstThenResponse)
{
    CommandTable t(2);
    const auto tag = *t.acquire();
    t.on_send_done(tag);
    EXPECT_FALSE(t.finished(tag));
    std::uint16_t got = 0;
    EXPECT_EQ(CqeVerdict::Ok, t.on_response(t.cid(tag), got));
    EXPECT_TRUE(t.finished(tag));
}

TEST(CommandTable, DeadlinesStartAtTheFirstScan)
{
    // A command's deadline is the first scan that sees it, plus the
    // timeout: never before its submission, at most a scan late.
    CommandTable t(4);
    const auto t0 = Clock::now();
    const std::chrono::seconds timeout(10);
    const auto a = *t.acquire();
    EXPECT_FALSE(t.scan(t0, timeout));  // a: due at t0 + 10 s
    const auto b = *t.acquire();
    EXPECT_FALSE(t.scan(t0 + std::chrono::seconds(5), timeout));  // b: due at t0 + 15 s
    EXPECT_FALSE(t.scan(t0 + std::chrono::milliseconds(9999), timeout));
    EXPECT_EQ(a, t.scan(t0 + std::chrono::seconds(10), timeout));
    EXPECT_EQ(a, t.scan(t0 + std::chrono::seconds(16), timeout));  // the first of the two
    std::uint16_t got = 0;
    ASSERT_EQ(CqeVerdict::Ok, t.on_response(t.cid(a), got));
    // Answered commands never expire, even while their SEND is pending.
    EXPECT_EQ(b, t.scan(t0 + std::chrono::seconds(16), timeout));
    EXPECT_EQ((std::vector<std::uint16_t>{a, b}), t.busy());
    EXPECT_EQ(2, t.in_flight());
    t.release(a);
    t.release(a);  // twice: no effect
    EXPECT_EQ(1, t.in_flight());
    // A tag used again starts a new deadline at the next scan, whatever
    // the old one was.
    const auto c = *t.acquire();
    EXPECT_EQ(a, c);
    t.release(b);
    EXPECT_FALSE(t.scan(t0 + std::chrono::seconds(20), timeout));
    EXPECT_FALSE(t.scan(t0 + std::chrono::seconds(29), timeout));
    EXPECT_EQ(c, t.scan(t0 + std::chrono::seconds(30), timeout));
}

TEST(CommandTable, Describe)
{
    EXPECT_STREQ("completion with an unknown command id", describe(CqeVerdict::UnknownCid));
    EXPECT_STREQ("completion with a stale command id", describe(CqeVerdict::StaleGeneration));
    EXPECT_STREQ("second completion of a command", describe(CqeVerdict::Duplicate));
}

}  // namespace
}  // namespace rblk::bypass
