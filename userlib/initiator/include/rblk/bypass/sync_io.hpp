// The synchronous layer over one IoQueue: read, write, flush, write zeroes
// and deallocate of byte ranges, each returning when all of it is done.
// A range is cut into commands of at most the queue's transfer size, kept
// up to the queue depth in flight. Memory the queue has registered
// (IoQueue::register_buffer(), the pool) moves without a copy; other
// memory is staged through the queue's registered pool.
//
// Recovery: a command that fails because its queue went down (or timed
// out) is not the caller's error yet: SyncIo lets Controller::recover()
// reconnect and sends it again, until ctrl_loss_tmo ends the controller
// (the Error becomes this call's status) or fast_io_fail_tmo fails the I/O
// (QueueDown). An NVMe error status from the target is returned at once.
#pragma once

#include "rblk/bypass/controller.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace rblk::bypass {

enum class CompletionMode {
    Poll,   // busy poll: lowest latency, a CPU at 100%
    Event,  // sleep on the completion channel while waiting
};

class SyncIo {
public:
    SyncIo(Controller& ctrl, std::size_t queue_index, CompletionMode mode = CompletionMode::Poll);

    // offset and length in bytes, multiples of the LBA size.
    IoStatus read(std::uint64_t offset, void* buf, std::size_t len);
    IoStatus write(std::uint64_t offset, const void* buf, std::size_t len);
    IoStatus flush();
    IoStatus write_zeroes(std::uint64_t offset, std::uint64_t len, bool deallocate = false);
    IoStatus deallocate(std::uint64_t offset, std::uint64_t len);

    // Why the last failed call failed, in one line (what a CLI prints).
    const std::string& error() const { return error_; }

private:
    // range()'s steps (sync_io.cpp): a Range is one call's commands.
    struct Range;
    IoStatus range(IoOp op, std::uint64_t offset, std::byte* buf, std::uint64_t len, bool deallocate);
    IoStatus submit_pieces(Range& rg);
    IoStatus reconnect(Range& rg);
    void wait_completions(Range& rg);
    IoStatus check_range(std::uint64_t offset, std::uint64_t len);
    IoStatus fail(IoStatus st, const std::string& why);

    Controller& ctrl_;
    std::size_t index_;
    CompletionMode mode_;
    std::string error_;
};

}  // namespace rblk::bypass
