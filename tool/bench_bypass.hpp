// rblkctl bench --path bypass: the bench's jobs on the kernel-bypass
// initiator (librblk_bypass) instead of io_uring: one I/O queue per job
// thread, the job's buffers registered with it once (zero copy), commands
// submitted and completions busy-polled by the job itself.
#pragma once

#include <rblk/bench/job_io.hpp>
#include <rblk/bypass/io_queue.hpp>

#include <cstdint>
#include <vector>

namespace rblkctl {

class BypassJobIo final : public rblk::bench::JobIo {
public:
    // Registers `buffers` with `q` (throws std::runtime_error when it cannot).
    BypassJobIo(rblk::bypass::IoQueue& q, const rblk::bench::IoBuffers& buffers);
    ~BypassJobIo() override;
    BypassJobIo(const BypassJobIo&) = delete;
    BypassJobIo& operator=(const BypassJobIo&) = delete;

    void prep(std::uint32_t slot, bool write, std::span<std::byte> buf, std::uint64_t offset) override;
    void submit_and_reap(std::uint32_t min_complete,
                         const std::function<void(std::uint32_t, int)>& done) override;

private:
    rblk::bypass::IoQueue& q_;
    const rblk::bench::IoBuffers& buffers_;
    std::vector<int> bytes_;                       // per slot: what success returns
    std::vector<std::uint32_t> refused_;           // slots submit() refused: -EIO at the next reap
    std::vector<rblk::bypass::IoCompletion> comps_;
};

}  // namespace rblkctl
