#include <rblk/bench/write_log.hpp>

#include <gtest/gtest.h>

namespace rblk::bench {
namespace {

TEST(WriteLog, TracksInFlightAndLastWrite)
{
    WriteLog log(8);
    EXPECT_EQ(log.size(), 8u);
    EXPECT_FALSE(log.busy(3));
    EXPECT_EQ(log.last_write(3), 0u);

    const auto seq = log.next_sequence();
    log.begin(3);
    EXPECT_TRUE(log.busy(3));
    EXPECT_EQ(log.last_write(3), 0u);  // not complete yet
    log.end_write(3, seq);
    EXPECT_FALSE(log.busy(3));
    EXPECT_EQ(log.last_write(3), seq);

    log.begin(3);  // a read keeps the last write
    EXPECT_EQ(log.last_write(3), seq);
    log.end_read(3);
    EXPECT_FALSE(log.busy(3));
    EXPECT_EQ(log.last_write(3), seq);
}

TEST(WriteLog, NextWrittenSkipsUnwrittenBlocks)
{
    WriteLog log(10);
    log.end_write(2, log.next_sequence());
    log.end_write(7, log.next_sequence());
    EXPECT_EQ(log.next_written(0), 2u);
    EXPECT_EQ(log.next_written(3), 7u);
    EXPECT_EQ(log.next_written(8), 10u);
}

TEST(WriteLog, SequenceNeverZeroAndWraps)
{
    WriteLog log(1);
    EXPECT_EQ(log.next_sequence(), 1u);
    EXPECT_EQ(log.next_sequence(), 2u);
    WriteLog near_end(1, WriteLog::kMaxSequence - 1);
    EXPECT_EQ(near_end.next_sequence(), WriteLog::kMaxSequence);
    EXPECT_EQ(near_end.next_sequence(), 1u);  // wraps past 0, which means "not written"
}

}  // namespace
}  // namespace rblk::bench
