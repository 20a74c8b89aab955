// rblkctl bench --path bypass: the bench's jobs on the kernel-bypass
// initiator (librblk_bypass) instead of io_uring: one I/O queue per job
// thread, the job's buffers registered with it once (zero copy), commands
// submitted by the job itself and completions reaped by it: busy polling
// with --hipri (fio's word for polled completions), else sleeping on the
// queue's completion channel while waiting, as an interrupt-driven job.
// The bench's second JobIo beside io_uring's, built as its own library
// (rblk::bench_bypass) so that the engine alone needs no verbs.
#pragma once

#include <rblk/bench/job_io.hpp>
#include <rblk/bypass/io_queue.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace rblk::bench {

class BypassJobIo final : public JobIo {
public:
    // Registers `buffers` with `q` (throws std::runtime_error when it cannot).
    BypassJobIo(rblk::bypass::IoQueue& q, const IoBuffers& buffers, bool busy_poll);
    ~BypassJobIo() override;
    BypassJobIo(const BypassJobIo&) = delete;
    BypassJobIo& operator=(const BypassJobIo&) = delete;

    void prep(std::uint32_t slot, bool write, std::span<std::byte> buf, std::uint64_t offset) override;
    void submit_and_reap(std::uint32_t min_complete,
                         const std::function<void(std::uint32_t, int)>& done) override;
    std::string failure() const override;

private:
    rblk::bypass::IoQueue& q_;
    const IoBuffers& buffers_;
    bool busy_poll_;
    std::vector<int> bytes_;                       // per slot: what success returns
    std::vector<rblk::bypass::IoRequest> queued_;  // prepared: posted by submit_and_reap()
    std::vector<rblk::bypass::IoCompletion> comps_;
};

}  // namespace rblk::bench
