#include "temp_target.hpp"

#include <rblk/bench/engine.hpp>
#include <rblk/bench/target.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

namespace rblk::bench {
namespace {

using testing::quick;
using testing::TempDir;

constexpr std::uint64_t kBlocks = 256;  // quick()'s 1 MiB in 4k blocks

std::string error_of(const BenchOptions& o)
{
    try {
        run_bench(o);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

std::string error_of_external(const BenchOptions& o, const ExternalTarget& ext)
{
    try {
        run_bench(o, {}, nullptr, &ext);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

void expect_clean(const RunResult& r)
{
    EXPECT_EQ(r.first_error(), "");
    EXPECT_EQ(r.mismatch_count(), 0u);
}

class EngineModes : public ::testing::TestWithParam<Mode> {};

TEST_P(EngineModes, OnePassOverATempFile)
{
    TempDir dir;
    const Mode mode = GetParam();
    const RunResult r = run_bench(quick(dir.path("f"), mode));
    expect_clean(r);
    EXPECT_TRUE(r.target_created);
    EXPECT_EQ(r.target_kind, "file");
    EXPECT_EQ(std::filesystem::file_size(dir.path("f")), 1u << 20);
    ASSERT_EQ(r.jobs.size(), 1u);
    const JobResult& j = r.jobs[0];
    // Without --runtime a job transfers its range exactly once.
    EXPECT_EQ(j.read.ios + j.write.ios, kBlocks);
    EXPECT_EQ(j.read.bytes + j.write.bytes, 1u << 20);
    EXPECT_EQ(j.read.ios > 0, mode_reads(mode));
    EXPECT_EQ(j.write.ios > 0, mode_writes(mode));
    EXPECT_EQ(j.read.lat.count(), j.read.ios);
    EXPECT_EQ(j.write.lat.count(), j.write.ios);
    EXPECT_GT(j.runtime_ns, 0u);
    // The process includes the job's thread (give or take the clock's grain).
    EXPECT_GE(j.process.usr_ns + j.process.sys_ns + 1'000'000, j.thread.usr_ns + j.thread.sys_ns);
    const auto& lat = j.read.ios ? j.read.lat : j.write.lat;
    EXPECT_GT(lat.min(), 0u);
    EXPECT_LE(lat.percentile(50), lat.max());
}

INSTANTIATE_TEST_SUITE_P(AllModes, EngineModes,
                         ::testing::Values(Mode::read, Mode::write, Mode::randread,
                                           Mode::randwrite, Mode::randrw),
                         [](const auto& info) { return std::string(mode_name(info.param)); });

TEST(Engine, RandrwHonoursTheMix)
{
    TempDir dir;
    BenchOptions o = quick(dir.path("f"), Mode::randrw);
    o.io_limit = 4000 * 4096;
    o.rwmixread = 90;
    const RunResult r = run_bench(o);
    expect_clean(r);
    const double reads = static_cast<double>(r.jobs[0].read.ios);
    EXPECT_NEAR(reads / 4000.0, 0.9, 0.03);
}

TEST(Engine, BatchedCompletionsStillDrainEverything)
{
    TempDir dir;
    BenchOptions o = quick(dir.path("f"), Mode::randwrite);
    o.batch_complete = o.iodepth;  // the last few in flight are fewer than the batch
    o.io_limit = 100 * 4096;       // not a multiple of the depth
    const RunResult r = run_bench(o);
    expect_clean(r);
    EXPECT_EQ(r.jobs[0].write.ios, 100u);
}

TEST(Engine, IoLimitIsExact)
{
    TempDir dir;
    BenchOptions o = quick(dir.path("f"), Mode::randread);
    o.io_limit = 64 << 10;
    const RunResult r = run_bench(o);
    expect_clean(r);
    EXPECT_EQ(r.jobs[0].read.ios, 16u);
    EXPECT_EQ(r.jobs[0].read.bytes, 64u << 10);
}

TEST(Engine, RuntimeBoundsTheMeasuredPhaseAfterRamp)
{
    TempDir dir;
    BenchOptions o = quick(dir.path("f"), Mode::randread);
    o.runtime = std::chrono::milliseconds(200);
    // A ramp long beside the runtime: counted, it would make 2.2 s; the
    // bound leaves a loaded host (VMs beside the unit tests) 1.8 s of
    // overshoot for the last I/O.
    o.ramp = std::chrono::seconds(2);
    const RunResult r = run_bench(o);
    expect_clean(r);
    const JobResult& j = r.jobs[0];
    EXPECT_GE(j.runtime_ns, 200'000'000u);
    EXPECT_LT(j.runtime_ns, 2'000'000'000u);  // the ramp is not counted
    EXPECT_GT(j.read.ios, kBlocks);        // looped over the file
}

TEST(Engine, JobsRunInParallelWithTheirOwnResults)
{
    TempDir dir;
    BenchOptions o = quick(dir.path("f"), Mode::read);
    o.numjobs = 3;
    const RunResult r = run_bench(o);
    expect_clean(r);
    ASSERT_EQ(r.jobs.size(), 3u);
    for (unsigned i = 0; i < 3; ++i) {
        EXPECT_EQ(r.jobs[i].id, i);
        EXPECT_EQ(r.jobs[i].read.ios, kBlocks);
    }
    EXPECT_EQ(r.total().read.ios, 3 * kBlocks);
    EXPECT_EQ(r.total().read.lat.count(), 3 * kBlocks);
}

TEST(Engine, DirectIoPinningAndSqpoll)
{
    TempDir dir;
    BenchOptions o = quick(dir.path("f"), Mode::randwrite);
    o.direct = true;
    o.cpus = {0};
    o.sqpoll = true;
    const RunResult r = run_bench(o);
    expect_clean(r);
    EXPECT_TRUE(r.target_direct);
    EXPECT_EQ(r.jobs[0].write.ios, kBlocks);
}

TEST(Engine, BadCpuFailsTheJobWithAReason)
{
    TempDir dir;
    BenchOptions o = quick(dir.path("f"), Mode::read);
    o.cpus = {1023};
    const RunResult r = run_bench(o);
    EXPECT_EQ(r.first_error(), "--cpus: cannot run job 0 on CPU 1023: Invalid argument");
}

// An external engine whose queue is gone: every I/O fails with EIO, and
// the engine knows why.
class DeadQueueIo final : public JobIo {
public:
    void prep(std::uint32_t slot, bool, std::span<std::byte>, std::uint64_t) override { queued_.push_back(slot); }
    void submit_and_reap(std::uint32_t, const std::function<void(std::uint32_t, int)>& done) override
    {
        for (std::uint32_t slot : queued_)
            done(slot, -EIO);
        queued_.clear();
    }
    std::string failure() const override { return "I/O queue failed: the target closed the connection"; }

private:
    std::vector<std::uint32_t> queued_;
};

TEST(Engine, AnIoErrorSaysWhyTheQueueFailed)
{
    TempDir dir;
    BenchOptions o = quick(dir.path("unused"), Mode::read);
    const ExternalTarget ext{"fake", "fake:queue", 1 << 20, 512,
                             [](unsigned, const IoBuffers&) { return std::make_unique<DeadQueueIo>(); }};
    const RunResult r = run_bench(o, {}, nullptr, &ext);
    EXPECT_EQ(r.first_error(),
              "read at offset 0x0 of fake:queue: Input/output error "
              "(I/O queue failed: the target closed the connection)");
}

// An in-memory namespace behind the external-target interface (the
// bypass path's seam), recording every I/O the jobs give it, so a test sees
// each offset the engine generates. Shared by the jobs' JobIos.
struct MemoryTarget {
    explicit MemoryTarget(std::size_t size) : bytes(size, std::byte{0x5a}) {}

    ExternalTarget external()
    {
        return {"memory", "memory:ns1", bytes.size(), 512,
                [this](unsigned, const IoBuffers&) { return std::make_unique<Io>(*this); }};
    }

    std::mutex lock;
    std::vector<std::byte> bytes;
    std::vector<std::uint64_t> reads, writes;  // offsets, in completion order

private:
    class Io final : public JobIo {
    public:
        explicit Io(MemoryTarget& t) : t_(t) {}
        void prep(std::uint32_t slot, bool write, std::span<std::byte> buf, std::uint64_t offset) override
        {
            queued_.push_back({slot, write, buf, offset});
        }
        void submit_and_reap(std::uint32_t, const std::function<void(std::uint32_t, int)>& done) override
        {
            for (const Queued& q : queued_) {
                int res = static_cast<int>(q.buf.size());
                {
                    const std::lock_guard g(t_.lock);
                    (q.write ? t_.writes : t_.reads).push_back(q.offset);
                    if (q.offset > t_.bytes.size() || t_.bytes.size() - q.offset < q.buf.size())
                        res = -EIO;
                    else if (q.write)
                        std::memcpy(t_.bytes.data() + q.offset, q.buf.data(), q.buf.size());
                    else
                        std::memcpy(q.buf.data(), t_.bytes.data() + q.offset, q.buf.size());
                }
                done(q.slot, res);
            }
            queued_.clear();
        }

    private:
        struct Queued {
            std::uint32_t slot;
            bool write;
            std::span<std::byte> buf;
            std::uint64_t offset;
        };
        MemoryTarget& t_;
        std::vector<Queued> queued_;
    };
};

constexpr std::uint64_t kOffset = 1 << 20, kRange = 512 << 10, kRangeBlocks = kRange / 4096;

// Every offset the jobs generated, reads and writes: bs-aligned, inside
// [kOffset, kOffset + kRange); and how many distinct blocks they covered.
std::size_t expect_inside_the_range(const MemoryTarget& t)
{
    std::set<std::uint64_t> blocks;
    for (const auto* offsets : {&t.reads, &t.writes})
        for (const std::uint64_t off : *offsets) {
            EXPECT_GE(off, kOffset);
            EXPECT_LT(off, kOffset + kRange);
            EXPECT_EQ(off % 4096, 0u) << off;
            blocks.insert(off);
        }
    return blocks.size();
}

class EngineOffset : public ::testing::TestWithParam<Mode> {};

TEST_P(EngineOffset, OffsetsStayInsideTheRangeFromOffset)
{
    const Mode mode = GetParam();
    MemoryTarget mem(4 << 20);
    const ExternalTarget ext = mem.external();
    BenchOptions o = quick("unused", mode, kRange);
    o.offset = kOffset;
    o.numjobs = 2;
    // Random modes draw 4 passes' worth, so the edges of the range are hit.
    o.io_limit = mode_random(mode) ? 4 * kRange : kRange;
    const RunResult r = run_bench(o, {}, nullptr, &ext);
    expect_clean(r);
    EXPECT_EQ(r.target_size, kRange);
    const std::size_t ios = mem.reads.size() + mem.writes.size();
    EXPECT_EQ(ios, 2 * o.io_limit.value() / 4096);
    const std::size_t covered = expect_inside_the_range(mem);
    if (!mode_random(mode))
        EXPECT_EQ(covered, kRangeBlocks);  // one pass: every block of the range, none beyond
    else
        EXPECT_GT(covered, kRangeBlocks * 9 / 10);
    // What lies outside the range is as it was; inside, writes landed.
    const auto untouched = [&](std::uint64_t from, std::uint64_t to) {
        return std::all_of(mem.bytes.begin() + static_cast<std::ptrdiff_t>(from),
                           mem.bytes.begin() + static_cast<std::ptrdiff_t>(to),
                           [](std::byte b) { return b == std::byte{0x5a}; });
    };
    EXPECT_TRUE(untouched(0, kOffset));
    EXPECT_TRUE(untouched(kOffset + kRange, mem.bytes.size()));
    if (mode != Mode::randrw) {
        EXPECT_EQ(untouched(kOffset, kOffset + kRange), !mode_writes(mode));
    } else {
        // Without verify a write sends what its buffer holds, as fio's
        // does without refill_buffers: in a mixed job, mostly what that
        // buffer last read, so the range may well end as it began (6% of
        // runs did). That writes went is what can be checked.
        EXPECT_FALSE(mem.writes.empty());
        EXPECT_FALSE(mem.reads.empty());
    }
}

INSTANTIATE_TEST_SUITE_P(AllModes, EngineOffset,
                         ::testing::Values(Mode::read, Mode::write, Mode::randread,
                                           Mode::randwrite, Mode::randrw),
                         [](const auto& info) { return std::string(mode_name(info.param)); });

TEST(Engine, VerifyWithAnOffsetSlicesTheRangeFromIt)
{
    MemoryTarget mem(4 << 20);
    const ExternalTarget ext = mem.external();
    BenchOptions w = quick("unused", Mode::write, kRange);
    w.offset = kOffset;
    w.numjobs = 2;
    w.verify = true;
    const RunResult wr = run_bench(w, {}, nullptr, &ext);
    expect_clean(wr);
    // The write pass read back its own: one pass over each job's slice.
    EXPECT_EQ(wr.jobs[0].verified_blocks + wr.jobs[1].verified_blocks, kRangeBlocks);
    BenchOptions rd = w;
    rd.mode = Mode::read;
    rd.numjobs = 1;
    const RunResult rr = run_bench(rd, {}, nullptr, &ext);
    expect_clean(rr);
    EXPECT_EQ(rr.jobs[0].verified_blocks, kRangeBlocks);
    EXPECT_EQ(expect_inside_the_range(mem), kRangeBlocks);
}

TEST(Engine, OffsetAndSizeMustFitAnExternalTarget)
{
    MemoryTarget mem(4 << 20);
    const ExternalTarget ext = mem.external();
    BenchOptions o = quick("unused", Mode::read, 2 << 20);
    o.offset = 3 << 20;
    EXPECT_EQ(error_of_external(o, ext),
              "--offset (3m) + --size (2m) exceeds the size of memory:ns1 (4194304 bytes)");
    o.size.reset();  // what lies past the offset
    EXPECT_EQ(run_bench(o, {}, nullptr, &ext).target_size, 1u << 20);
    o.offset = 4 << 20;
    EXPECT_EQ(error_of_external(o, ext),
              "--offset (4m) leaves less than --bs (4k) of memory:ns1 (4194304 bytes)");
    o.offset = 16 << 20;
    o.size = 4096;
    EXPECT_EQ(error_of_external(o, ext),
              "--offset (16m) + --size (4k) exceeds the size of memory:ns1 (4194304 bytes)");
    EXPECT_TRUE(mem.reads.size() == 256u && mem.writes.empty());  // only the run that fit
}

// The io_uring path on a file: the range starts at --offset, the bytes
// before and after it stay as they were.
TEST(Engine, OffsetOnAFileLeavesTheRestAlone)
{
    TempDir dir;
    const std::string f = dir.path("f");
    std::ofstream(f).put('x');
    testing::scribble(f, 0, 3 << 20, 0xaa);
    BenchOptions o = quick(f, Mode::randwrite, 1 << 20);
    o.offset = 1 << 20;
    o.io_limit = 4 << 20;
    const RunResult r = run_bench(o);
    expect_clean(r);
    EXPECT_FALSE(r.target_created);
    EXPECT_EQ(std::filesystem::file_size(f), 3u << 20);
    std::ifstream in(f, std::ios::binary);
    std::vector<char> all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_EQ(all.size(), 3u << 20);
    const auto aa = [](char c) { return static_cast<unsigned char>(c) == 0xaa; };
    EXPECT_TRUE(std::all_of(all.begin(), all.begin() + (1 << 20), aa));
    EXPECT_TRUE(std::all_of(all.begin() + (2 << 20), all.end(), aa));
    EXPECT_FALSE(std::all_of(all.begin() + (1 << 20), all.begin() + (2 << 20), aa));

    // Verify: every block of the range written (one sequential pass), then
    // read back from the offset.
    o.mode = Mode::write;
    o.verify = true;
    o.io_limit.reset();
    expect_clean(run_bench(o));
    BenchOptions rd = o;
    rd.mode = Mode::read;
    const RunResult rr = run_bench(rd);
    expect_clean(rr);
    EXPECT_EQ(rr.jobs[0].verified_blocks, kBlocks);

    // Without --size: what lies past the offset.
    o = quick(f, Mode::read);
    o.size.reset();
    o.offset = 2 << 20;
    EXPECT_EQ(run_bench(o).target_size, 1u << 20);
    o.offset = 3 << 20;
    EXPECT_EQ(error_of(o), "--offset (3m) leaves less than --bs (4k) of " + f + " (3145728 bytes)");
}

TEST(Engine, ACreatedFileHoldsOffsetPlusSize)
{
    TempDir dir;
    BenchOptions o = quick(dir.path("new"), Mode::write, 1 << 20);
    o.offset = 2 << 20;
    const RunResult r = run_bench(o);
    expect_clean(r);
    EXPECT_TRUE(r.target_created);
    EXPECT_EQ(r.target_size, 1u << 20);
    EXPECT_EQ(std::filesystem::file_size(dir.path("new")), 3u << 20);
}

TEST(Engine, MissingFileNeedsSize)
{
    TempDir dir;
    BenchOptions o = quick(dir.path("absent"), Mode::read);
    o.size.reset();
    EXPECT_EQ(error_of(o), dir.path("absent") + " does not exist: give --size to create it");
}

TEST(Engine, ExistingFileSizeIsUsed)
{
    TempDir dir;
    run_bench(quick(dir.path("f"), Mode::write, 64 << 10));
    BenchOptions o = quick(dir.path("f"), Mode::read);
    o.size.reset();
    const RunResult r = run_bench(o);
    EXPECT_FALSE(r.target_created);
    EXPECT_EQ(r.target_size, 64u << 10);
    EXPECT_EQ(r.jobs[0].read.ios, 16u);
}

TEST(Engine, NotAFileOrBlockDevice)
{
    EXPECT_EQ(error_of(quick("/dev/null", Mode::read)),
              "/dev/null is neither a block device nor a regular file");
}

TEST(Engine, HipriNeedsDirect)
{
    TempDir dir;
    BenchOptions o = quick(dir.path("f"), Mode::read);
    o.hipri = true;
    EXPECT_EQ(error_of(o), "--hipri needs O_DIRECT: add --direct, or use a block device");
}

TEST(Engine, HipriOnAFileWithoutPollSupportSaysSo)
{
    TempDir dir;
    BenchOptions o = quick(dir.path("f"), Mode::read);
    o.hipri = true;
    o.direct = true;
    // Either the device has poll queues and it runs, or the reason names --hipri.
    std::string err;
    try {
        err = run_bench(o).first_error();
    } catch (const std::exception& e) {
        err = e.what();
    }
    if (!err.empty()) {
        EXPECT_EQ(err.rfind("--hipri: ", 0), 0u) << err;
    }
}

TEST(Engine, PollQueueMessage)
{
    EXPECT_FALSE(read_io_poll(0, 0));  // no such device in sysfs
    EXPECT_EQ(no_poll_queues_message("/dev/rblk0n1"),
              "--hipri: /dev/rblk0n1 has no poll queues (queue/io_poll is 0), so completions "
              "cannot be polled; drop --hipri or give the driver poll queues "
              "(e.g. nvme.poll_queues=N)");
    EXPECT_EQ(no_poll_queues_message("/mnt/f", "254:0").rfind("--hipri: /mnt/f's device (254:0) has no poll queues", 0), 0u);
}

TEST(Engine, StopRequestEndsTheRunWithResults)
{
    TempDir dir;
    BenchOptions o = quick(dir.path("f"), Mode::randread);
    o.runtime = std::chrono::seconds(30);
    const std::atomic<bool> stop{true};  // as if Ctrl-C came at once
    const RunResult r = run_bench(o, {}, &stop);
    EXPECT_EQ(r.first_error(), "");
    EXPECT_LT(r.jobs[0].runtime_ns, 5'000'000'000u);
}

TEST(Engine, ProgressIsSampledOncePerSecond)
{
    TempDir dir;
    BenchOptions o = quick(dir.path("f"), Mode::randread);
    o.runtime = std::chrono::milliseconds(2300);
    std::vector<ProgressSample> samples;
    run_bench(o, [&](const ProgressSample& s) { samples.push_back(s); });
    ASSERT_GE(samples.size(), 2u);
    ASSERT_LE(samples.size(), 3u);  // setup time counts too
    EXPECT_NEAR(samples[0].elapsed_s, 1.0, 0.5);
    EXPECT_GT(samples[1].read_iops, 0u);
    EXPECT_EQ(samples[1].write_iops, 0u);
}

TEST(Engine, ExistingFileSmallerThanABlock)
{
    TempDir dir;
    std::ofstream(dir.path("tiny")) << "not even a sector";
    BenchOptions o = quick(dir.path("tiny"), Mode::read);
    o.size.reset();
    EXPECT_EQ(error_of(o), dir.path("tiny") + " is smaller than --bs (4k): give --size");
}

}  // namespace
}  // namespace rblk::bench
