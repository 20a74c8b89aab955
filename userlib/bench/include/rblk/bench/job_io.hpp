// How a job's I/O reaches its target: the io_uring engine on a file or a
// block device (the default, job.cpp), or another initiator behind the same
// submit/complete loop, given by the caller as an ExternalTarget (rblkctl's
// kernel-bypass path: bypass_job_io.hpp). A job makes its JobIo on its
// own thread and is the only one to use it.
#pragma once

#include "rblk/bench/io_buffers.hpp"
#include "rblk/bench/target.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace rblk::bench {

class JobIo {
public:
    virtual ~JobIo() = default;
    // Queues one I/O for slot `slot`, whose buffer is `buf` (one of the
    // job's IoBuffers, which the JobIo was made with).
    virtual void prep(std::uint32_t slot, bool write, std::span<std::byte> buf, std::uint64_t offset) = 0;
    // Sends what was queued, waits until at least `min_complete` I/Os have
    // completed (0: does not wait) and calls done(slot, res) for each one
    // reaped: res is the bytes moved, or -errno. Throws on a failure of the
    // engine itself (not of an I/O).
    virtual void submit_and_reap(std::uint32_t min_complete,
                                 const std::function<void(std::uint32_t, int)>& done) = 0;
    // Why an I/O failed, beyond its errno, when the engine knows (a queue
    // that failed: the target hung up, a bad completion); empty if not.
    // The job's error line ends with it.
    virtual std::string failure() const { return {}; }
};

// A target the bench does not open: its geometry, and the JobIo of each job.
struct ExternalTarget {
    std::string kind;                // as RunResult::target_kind: "bypass"
    std::string path;                // how reports name it
    std::uint64_t bytes = 0;         // its whole size
    std::uint32_t logical_block = 512;
    std::function<std::unique_ptr<JobIo>(unsigned job, const IoBuffers& buffers)> make_io;
};

// The Target of an external one under `o`, checked as a block device's
// (--bs a multiple of the logical block, --offset + --size within it).
// Throws OptionError.
Target external_target(const BenchOptions& o, const ExternalTarget& ext);

}  // namespace rblk::bench
