// The block device path (size and sector ioctls, O_DIRECT, O_EXCL, poll
// queues) on a loop device: host tests need no real disk.
#include "loop_device.hpp"
#include "temp_target.hpp"

#include <rblk/bench/engine.hpp>
#include <rblk/bench/unique_fd.hpp>

#include <fcntl.h>

#include <gtest/gtest.h>

namespace rblk::bench {
namespace {

using testing::LoopDevice;
using testing::quick;
using testing::TempDir;

constexpr std::uint64_t kDeviceBytes = 4 << 20;

std::string error_of(const BenchOptions& o)
{
    try {
        const RunResult r = run_bench(o);
        return r.first_error();
    } catch (const std::exception& e) {
        return e.what();
    }
}

class BlockDevice : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!loop.available())
            GTEST_SKIP() << loop.why_not();
    }
    BenchOptions on_device(Mode mode)
    {
        BenchOptions o = quick(loop.path(), mode);
        o.size.reset();  // the whole device
        return o;
    }

    TempDir dir;
    LoopDevice loop{dir.path("backing"), kDeviceBytes, 4096};
};

TEST_F(BlockDevice, WholeDeviceWithODirect)
{
    const RunResult r = run_bench(on_device(Mode::randread));
    EXPECT_EQ(r.first_error(), "");
    EXPECT_EQ(r.target_kind, "block");
    EXPECT_TRUE(r.target_direct);
    EXPECT_EQ(r.target_size, kDeviceBytes);
    EXPECT_EQ(r.jobs[0].read.ios, kDeviceBytes / 4096);
}

TEST_F(BlockDevice, VerifyWriteThenRead)
{
    BenchOptions w = on_device(Mode::write);
    w.verify = true;
    w.numjobs = 2;
    const RunResult wr = run_bench(w);
    EXPECT_EQ(wr.first_error(), "");
    EXPECT_EQ(wr.mismatch_count(), 0u);
    BenchOptions r = on_device(Mode::randread);
    r.verify = true;
    const RunResult rd = run_bench(r);
    EXPECT_EQ(rd.mismatch_count(), 0u);
    EXPECT_EQ(rd.jobs[0].verified_blocks, kDeviceBytes / 4096);
}

TEST_F(BlockDevice, SizeBeyondTheDevice)
{
    BenchOptions o = on_device(Mode::read);
    o.size = 8 << 20;
    EXPECT_EQ(error_of(o), "--size (8m) exceeds the size of " + loop.path() + " (4194304 bytes)");
}

TEST_F(BlockDevice, OffsetAndSizeWithinTheDevice)
{
    BenchOptions o = on_device(Mode::read);
    o.offset = 3 << 20;
    o.size = 2 << 20;
    EXPECT_EQ(error_of(o), "--offset (3m) + --size (2m) exceeds the size of " + loop.path() +
                               " (4194304 bytes)");
    o.size.reset();
    o.offset = 4 << 20;
    EXPECT_EQ(error_of(o), "--offset (4m) leaves less than --bs (4k) of " + loop.path() +
                               " (4194304 bytes)");
    o.offset = 1 << 20;  // the rest of the device
    const RunResult r = run_bench(o);
    EXPECT_EQ(r.first_error(), "");
    EXPECT_EQ(r.target_size, 3u << 20);
    EXPECT_EQ(r.jobs[0].read.ios, (3u << 20) / 4096);
}

TEST_F(BlockDevice, VerifyFromAnOffset)
{
    BenchOptions w = on_device(Mode::write);
    w.verify = true;
    w.numjobs = 2;
    w.offset = 2 << 20;
    w.size = 1 << 20;
    const RunResult wr = run_bench(w);
    EXPECT_EQ(wr.first_error(), "");
    EXPECT_EQ(wr.mismatch_count(), 0u);
    BenchOptions r = w;
    r.mode = Mode::randread;
    r.numjobs = 1;
    const RunResult rd = run_bench(r);
    EXPECT_EQ(rd.first_error(), "");
    EXPECT_EQ(rd.mismatch_count(), 0u);
    EXPECT_EQ(rd.jobs[0].verified_blocks, (1u << 20) / 4096);
}

TEST_F(BlockDevice, BlockSizeBelowTheDevicesSector)
{
    BenchOptions o = on_device(Mode::read);
    o.block_size = 2048;
    EXPECT_EQ(error_of(o), "--bs (2048) must be a multiple of " + loop.path() +
                               "'s logical block size (4096)");
}

TEST_F(BlockDevice, RefusesToWriteToAHeldDevice)
{
    const UniqueFd holder(::open(loop.path().c_str(), O_RDONLY | O_EXCL | O_CLOEXEC));
    ASSERT_TRUE(holder);
    EXPECT_EQ(error_of(on_device(Mode::randwrite)),
              loop.path() + " is in use (mounted, or held by another driver): refusing to write to it");
    EXPECT_EQ(error_of(on_device(Mode::read)), "");  // reading is harmless
}

TEST_F(BlockDevice, HipriWithoutPollQueues)
{
    BenchOptions o = on_device(Mode::randread);
    o.hipri = true;
    EXPECT_EQ(error_of(o).rfind("--hipri: " + loop.path() + " has no poll queues", 0), 0u);
}

}  // namespace
}  // namespace rblk::bench
