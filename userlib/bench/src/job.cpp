#include "rblk/bench/job.hpp"

#include "rblk/bench/block_header.hpp"
#include "rblk/bench/io_buffers.hpp"
#include "rblk/bench/job_io.hpp"
#include "rblk/bench/prng.hpp"
#include "rblk/bench/ring.hpp"
#include "rblk/bench/write_log.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace rblk::bench {
namespace {

std::uint64_t now_ns()
{
    timespec ts;
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
           static_cast<std::uint64_t>(ts.tv_nsec);
}

// RUSAGE_THREAD or RUSAGE_SELF.
CpuTime cpu_time(int who)
{
    rusage ru{};
    ::getrusage(who, &ru);
    auto ns = [](const timeval& tv) {
        return static_cast<std::uint64_t>(tv.tv_sec) * 1'000'000'000ULL +
               static_cast<std::uint64_t>(tv.tv_usec) * 1000ULL;
    };
    return {ns(ru.ru_utime), ns(ru.ru_stime),
            static_cast<std::uint64_t>(ru.ru_nvcsw + ru.ru_nivcsw)};
}

std::string hex(std::uint64_t v)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

// The default JobIo: a ring of the job's own on the target's fd, with the
// file and the buffers registered (READ_FIXED/WRITE_FIXED).
class UringIo final : public JobIo {
public:
    UringIo(const BenchOptions& o, int fd, const IoBuffers& buffers)
        : ring_(RingConfig{o.iodepth, o.sqpoll, o.hipri})
    {
        ring_.register_file(fd);
        ring_.register_buffers(buffers.iovecs());
    }

    void prep(std::uint32_t slot, bool write, std::span<std::byte> buf, std::uint64_t offset) override
    {
        io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());  // never null: inflight <= entries
        const auto len = static_cast<unsigned>(buf.size());
        if (write)
            io_uring_prep_write_fixed(sqe, 0, buf.data(), len, offset, static_cast<int>(slot));
        else
            io_uring_prep_read_fixed(sqe, 0, buf.data(), len, offset, static_cast<int>(slot));
        sqe->flags |= IOSQE_FIXED_FILE;
        io_uring_sqe_set_data64(sqe, slot);
    }

    void submit_and_reap(std::uint32_t min_complete,
                         const std::function<void(std::uint32_t, int)>& done) override
    {
        io_uring* ring = ring_.get();
        const int ret = io_uring_submit_and_wait(ring, min_complete);
        if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
            throw std::system_error(-ret, std::generic_category(), "io_uring_submit_and_wait");
        unsigned head, reaped = 0;
        io_uring_cqe* cqe;
        io_uring_for_each_cqe(ring, head, cqe)
        {
            done(static_cast<std::uint32_t>(io_uring_cqe_get_data64(cqe)), cqe->res);
            ++reaped;
        }
        io_uring_cq_advance(ring, reaped);
    }

private:
    Ring ring_;
};

enum class Phase { ramp, measure, readback };

struct Slot {
    std::uint64_t offset = 0;
    std::uint64_t submitted = 0;
    std::uint32_t sequence = 0;
    bool write = false;
};

class Job {
public:
    explicit Job(const JobContext& ctx)
        : ctx_(ctx), o_(ctx.options), bs_(o_.block_size),
          blocks_(ctx.plan.length / o_.block_size),
          rng_(ctx.generation ^ (std::uint64_t{ctx.plan.id} + 1) * 0xD1B54A32D192ED03ULL)
    {
    }

    JobResult run();

private:
    void setup();
    void pin();
    void loop();
    void refill();
    bool can_issue();
    void prep(std::uint32_t slot);
    std::uint64_t pick_block();
    bool pick_write();
    void complete(std::uint32_t slot, int res, std::uint64_t now);
    void check(const Slot& s, std::uint32_t written, std::uint32_t slot);
    void fail_io(const Slot& s, int res);
    void tick(std::uint64_t now);
    void start_measuring(std::uint64_t now);
    void finish_measuring(std::uint64_t now);

    const JobContext& ctx_;
    const BenchOptions& o_;
    const std::uint32_t bs_;
    const std::uint64_t blocks_;
    Xoshiro256 rng_;
    JobResult result_;

    // Buffers outlive the engine that has them registered.
    std::optional<IoBuffers> buffers_;
    std::unique_ptr<JobIo> io_;
    std::vector<Slot> slots_;
    std::vector<std::uint32_t> free_;      // slots ready to issue
    std::vector<std::uint32_t> pending_;   // prepared, not yet submitted
    WriteLog log_;                         // --verify only
    std::uint32_t inflight_ = 0;

    Phase phase_ = Phase::measure;
    bool stopping_ = false;
    std::uint64_t cursor_ = 0;             // next block of a sequential pass / readback
    std::uint64_t issued_ = 0;             // bytes issued while measuring
    std::uint64_t ramp_end_ = 0, deadline_ = 0, measure_start_ = 0, last_now_ = 0;
    CpuTime thread_start_{}, process_start_{};
    std::uint64_t done_ios_[2] = {0, 0}, done_bytes_ = 0;  // progress, all phases
};

void Job::pin()
{
    if (o_.cpus.empty())
        return;
    const unsigned cpu = o_.cpus[ctx_.plan.id % o_.cpus.size()];
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (int err = ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set); err != 0)
        throw std::runtime_error("--cpus: cannot run job " + std::to_string(ctx_.plan.id) +
                                 " on CPU " + std::to_string(cpu) + ": " + std::strerror(err));
}

void Job::setup()
{
    pin();  // first, so the ring and buffers are allocated on the job's node
    buffers_.emplace(o_.iodepth, bs_);
    if (ctx_.external)
        io_ = ctx_.external->make_io(ctx_.plan.id, *buffers_);
    else
        io_ = std::make_unique<UringIo>(o_, ctx_.target.fd.get(), *buffers_);
    if (!o_.verify && mode_writes(o_.mode)) {
        // Incompressible data, once: a deduplicating target must not look fast.
        for (std::uint32_t i = 0; i < o_.iodepth; ++i)
            for (auto& b : (*buffers_)[i])
                b = static_cast<std::byte>(rng_.next());
    }
    slots_.resize(o_.iodepth);
    for (std::uint32_t i = o_.iodepth; i-- > 0;)
        free_.push_back(i);
    pending_.reserve(o_.iodepth);
    if (o_.verify)
        log_ = WriteLog(blocks_);
}

bool Job::can_issue()
{
    if (stopping_)
        return false;
    if (phase_ == Phase::readback) {
        cursor_ = log_.next_written(cursor_);
        return cursor_ < blocks_;
    }
    return phase_ == Phase::ramp || !ctx_.plan.io_limit || issued_ + bs_ <= *ctx_.plan.io_limit;
}

std::uint64_t Job::pick_block()
{
    if (phase_ == Phase::readback)
        return cursor_++;
    if (mode_random(o_.mode)) {
        std::uint64_t b;
        do
            b = rng_.below(blocks_);
        while (o_.verify && log_.busy(b));  // one I/O per block at a time
        return b;
    }
    // plan_jobs guarantees blocks_ >= iodepth under --verify, so the cursor
    // never catches up with a block still in flight.
    const std::uint64_t b = cursor_;
    cursor_ = cursor_ + 1 == blocks_ ? 0 : cursor_ + 1;
    return b;
}

bool Job::pick_write()
{
    if (phase_ == Phase::readback)
        return false;
    if (o_.mode == Mode::randrw)
        return rng_.below(100) >= o_.rwmixread;
    return mode_writes(o_.mode);
}

void Job::prep(std::uint32_t i)
{
    Slot& s = slots_[i];
    s.write = pick_write();
    const std::uint64_t block = pick_block();
    s.offset = ctx_.plan.start + block * bs_;
    const auto buf = (*buffers_)[i];
    if (s.write && o_.verify) {
        s.sequence = log_.next_sequence();
        fill_block(buf, {s.offset, ctx_.generation, std::uint64_t{ctx_.plan.id} << 32 | s.sequence});
    }
    io_->prep(i, s.write, buf, s.offset);
    if (o_.verify)
        log_.begin(block);
    if (phase_ == Phase::measure)
        issued_ += bs_;
}

void Job::refill()
{
    while (!free_.empty() && can_issue()) {
        const std::uint32_t i = free_.back();
        free_.pop_back();
        prep(i);
        pending_.push_back(i);
    }
}

void Job::fail_io(const Slot& s, int res)
{
    const char* op = s.write ? "write" : "read";
    std::string msg;
    if (res < 0 && o_.hipri && (res == -EOPNOTSUPP || res == -EINVAL))
        msg = "--hipri: polled I/O is not supported on " + ctx_.target.path + " (" +
              std::strerror(-res) + "): it has no poll queues; drop --hipri";
    else if (res < 0)
        msg = std::string(op) + " at offset " + hex(s.offset) + " of " + ctx_.target.path +
              ": " + std::strerror(-res);
    if (res < 0 && io_) {
        if (const std::string why = io_->failure(); !why.empty())
            msg += " (" + why + ")";
    }
    else
        msg = std::string("short ") + op + " at offset " + hex(s.offset) + " of " +
              ctx_.target.path + ": " + std::to_string(res) + " of " + std::to_string(bs_) +
              " bytes";
    if (result_.error.empty())
        result_.error = msg;
    stopping_ = true;
    ctx_.abort.store(true, std::memory_order_relaxed);
}

void Job::check(const Slot& s, std::uint32_t written, std::uint32_t slot)
{
    std::optional<Expected> expected;
    if (written != 0)  // this run wrote the block: it must be exactly that write
        expected = Expected{ctx_.generation, std::uint64_t{ctx_.plan.id} << 32 | written};
    ++result_.verified_blocks;
    if (auto m = check_block((*buffers_)[slot], s.offset, expected)) {
        ++result_.mismatch_count;
        if (result_.mismatches.size() < kMaxMismatchDetails)
            result_.mismatches.push_back(*m);
    }
}

void Job::complete(std::uint32_t i, int res, std::uint64_t now)
{
    const Slot& s = slots_[i];
    if (res != static_cast<int>(bs_)) {
        fail_io(s, res);
        return;
    }
    if (o_.verify) {
        const std::uint64_t block = (s.offset - ctx_.plan.start) / bs_;
        if (s.write) {
            log_.end_write(block, s.sequence);
        } else {
            log_.end_read(block);
            check(s, log_.last_write(block), i);
        }
    }
    ++done_ios_[s.write];
    done_bytes_ += bs_;
    if (phase_ == Phase::measure) {
        DirStats& d = s.write ? result_.write : result_.read;
        ++d.ios;
        d.bytes += bs_;
        d.lat.record(now - s.submitted);
    }
}

void Job::start_measuring(std::uint64_t now)
{
    phase_ = Phase::measure;
    result_.read = {};
    result_.write = {};
    issued_ = 0;
    measure_start_ = now;
    deadline_ = o_.runtime ? now + static_cast<std::uint64_t>(o_.runtime->count()) : 0;
    // The process's interval encloses the thread's (read first here, last
    // in finish_measuring), so the process never reports less CPU time.
    process_start_ = cpu_time(RUSAGE_SELF);
    thread_start_ = cpu_time(RUSAGE_THREAD);
}

void Job::finish_measuring(std::uint64_t now)
{
    if (phase_ != Phase::measure)
        return;
    auto since = [](const CpuTime& start, const CpuTime& end) {
        return CpuTime{end.usr_ns - start.usr_ns, end.sys_ns - start.sys_ns, end.ctx - start.ctx};
    };
    result_.runtime_ns = now - measure_start_;
    result_.thread = since(thread_start_, cpu_time(RUSAGE_THREAD));
    result_.process = since(process_start_, cpu_time(RUSAGE_SELF));
}

void Job::tick(std::uint64_t now)
{
    if (phase_ == Phase::ramp && now >= ramp_end_)
        start_measuring(now);
    else if (phase_ == Phase::measure && deadline_ != 0 && now >= deadline_)
        stopping_ = true;
    if (ctx_.abort.load(std::memory_order_relaxed))
        stopping_ = true;
    ctx_.progress.read_ios.store(done_ios_[0], std::memory_order_relaxed);
    ctx_.progress.write_ios.store(done_ios_[1], std::memory_order_relaxed);
    ctx_.progress.bytes.store(done_bytes_, std::memory_order_relaxed);
}

void Job::loop()
{
    refill();
    while (inflight_ > 0 || !pending_.empty()) {
        if (!pending_.empty()) {
            // One clock read per batch: the whole batch enters the kernel now.
            const std::uint64_t t = now_ns();
            for (std::uint32_t i : pending_)
                slots_[i].submitted = t;
            inflight_ += static_cast<std::uint32_t>(pending_.size());
            pending_.clear();
        }
        // Never more than is in flight, or the wait could not end. One
        // clock read per batch of completions, once the wait is over.
        std::uint64_t now = 0;
        unsigned reaped = 0;
        io_->submit_and_reap(std::min(o_.batch_complete, inflight_), [&](std::uint32_t i, int res) {
            if (now == 0)
                now = now_ns();
            complete(i, res, now);
            free_.push_back(i);
            ++reaped;
        });
        if (now == 0)
            now = now_ns();
        inflight_ -= reaped;
        last_now_ = now;
        tick(now);
        refill();
    }
}

JobResult Job::run()
{
    result_.id = ctx_.plan.id;
    try {
        setup();
    } catch (const std::exception& e) {
        result_.error = e.what();
        ctx_.abort.store(true);
    }
    ctx_.ready.arrive_and_wait();
    if (ctx_.abort.load())
        return std::move(result_);
    try {
        const std::uint64_t t0 = now_ns();
        if (o_.ramp.count() > 0) {
            phase_ = Phase::ramp;
            ramp_end_ = t0 + static_cast<std::uint64_t>(o_.ramp.count());
        } else {
            start_measuring(t0);
        }
        last_now_ = t0;
        loop();
        finish_measuring(last_now_);
        if (o_.verify && mode_writes(o_.mode) && result_.error.empty() && !ctx_.abort.load()) {
            // Read back every block this run wrote, checking it is that write.
            phase_ = Phase::readback;
            cursor_ = 0;
            stopping_ = false;  // the time limit was the measured phase's
            loop();
        }
    } catch (const std::exception& e) {
        if (result_.error.empty())
            result_.error = e.what();
        ctx_.abort.store(true);
    }
    return std::move(result_);
}

}  // namespace

JobResult run_job(const JobContext& ctx)
{
    return Job(ctx).run();
}

}  // namespace rblk::bench
