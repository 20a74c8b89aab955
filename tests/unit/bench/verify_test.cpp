// --verify end to end on a temp file: a write pass stamps every block, a read
// pass checks them, and damage done to the file in between is reported.
#include "temp_target.hpp"

#include <rblk/bench/engine.hpp>

#include <gtest/gtest.h>

namespace rblk::bench {
namespace {

using testing::quick;
using testing::TempDir;

constexpr std::uint64_t kBlocks = 256;

BenchOptions verifying(const std::string& file, Mode mode)
{
    BenchOptions o = quick(file, mode);
    o.verify = true;
    return o;
}

class Verify : public ::testing::Test {
protected:
    void SetUp() override
    {
        // The write pass: every block stamped, then read back and checked.
        const RunResult w = run_bench(verifying(file, Mode::write));
        ASSERT_EQ(w.first_error(), "");
        ASSERT_EQ(w.mismatch_count(), 0u);
        ASSERT_EQ(w.jobs[0].write.ios, kBlocks);
        ASSERT_EQ(w.jobs[0].verified_blocks, kBlocks);
    }

    RunResult read_pass(Mode mode = Mode::read) { return run_bench(verifying(file, mode)); }

    TempDir dir;
    std::string file = dir.path("f");
};

TEST_F(Verify, IntactFileReadsClean)
{
    const RunResult r = read_pass();
    EXPECT_EQ(r.first_error(), "");
    EXPECT_EQ(r.mismatch_count(), 0u);
    EXPECT_EQ(r.jobs[0].verified_blocks, kBlocks);
}

TEST_F(Verify, CatchesCorruptedPayload)
{
    testing::scribble(file, 5 * 4096 + 1000, 16, 0xEE);
    const RunResult r = read_pass();
    ASSERT_EQ(r.mismatch_count(), 1u);
    const Mismatch& m = r.jobs[0].mismatches.at(0);
    EXPECT_EQ(m.offset, 5u * 4096);
    EXPECT_EQ(m.kind, MismatchKind::crc);
    EXPECT_NE(m.expected, m.actual);
}

TEST_F(Verify, CatchesZeroedBlock)
{
    testing::scribble(file, 9 * 4096, 4096, 0);
    const RunResult r = read_pass();
    ASSERT_EQ(r.mismatch_count(), 1u);
    EXPECT_EQ(r.jobs[0].mismatches.at(0).offset, 9u * 4096);
    EXPECT_EQ(r.jobs[0].mismatches.at(0).kind, MismatchKind::magic);
}

TEST_F(Verify, CatchesMisdirectedWrite)
{
    testing::copy_block(file, 3 * 4096, 7 * 4096);
    const RunResult r = read_pass();
    ASSERT_EQ(r.mismatch_count(), 1u);
    const Mismatch& m = r.jobs[0].mismatches.at(0);
    EXPECT_EQ(m.kind, MismatchKind::offset);
    EXPECT_EQ(m.expected, 7u * 4096);
    EXPECT_EQ(m.actual, 3u * 4096);
}

TEST_F(Verify, RandrwChecksReadsAgainstItsOwnWrites)
{
    BenchOptions o = verifying(file, Mode::randrw);
    o.numjobs = 2;
    o.runtime = std::chrono::milliseconds(200);
    const RunResult r = run_bench(o);
    EXPECT_EQ(r.first_error(), "");
    EXPECT_EQ(r.mismatch_count(), 0u);
    for (const auto& j : r.jobs) {
        EXPECT_GT(j.write.ios, 0u);
        EXPECT_GT(j.verified_blocks, j.read.ios / 2);  // reads plus the read-back
    }
}

TEST(VerifyReadBack, FollowsATimedWritePass)
{
    TempDir dir;
    BenchOptions o = verifying(dir.path("f"), Mode::randwrite);
    o.runtime = std::chrono::milliseconds(100);
    const RunResult r = run_bench(o);
    EXPECT_EQ(r.mismatch_count(), 0u);
    // Every block written at least once is read back once.
    EXPECT_GT(r.jobs[0].verified_blocks, 0u);
    EXPECT_LE(r.jobs[0].verified_blocks, kBlocks);
    EXPECT_LE(r.jobs[0].verified_blocks, r.jobs[0].write.ios);
}

TEST(VerifyFresh, UnstampedBlocksFailAndDetailsAreCapped)
{
    TempDir dir;
    const RunResult r = run_bench(verifying(dir.path("new"), Mode::read));
    EXPECT_EQ(r.mismatch_count(), kBlocks);
    EXPECT_EQ(r.jobs[0].mismatches.size(), kMaxMismatchDetails);
    EXPECT_EQ(r.jobs[0].mismatches[0].kind, MismatchKind::magic);
}

}  // namespace
}  // namespace rblk::bench
