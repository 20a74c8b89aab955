// The bench's JobIo on a bypass I/O queue; see bypass_job_io.hpp.
#include "rblk/bench/bypass_job_io.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace rblk::bench {

namespace bp = rblk::bypass;

BypassJobIo::BypassJobIo(bp::IoQueue& q, const IoBuffers& buffers, bool busy_poll)
    : q_(q), buffers_(buffers), busy_poll_(busy_poll), bytes_(buffers.iovecs().size()), comps_(q.depth())
{
    queued_.reserve(buffers_.iovecs().size());
    for (const iovec& v : buffers_.iovecs())
        if (const int err = q_.register_buffer(v.iov_base, v.iov_len))
            throw std::runtime_error("cannot register the job's buffers with the RDMA device: " +
                                     std::string(std::strerror(err)));
}

BypassJobIo::~BypassJobIo()
{
    for (const iovec& v : buffers_.iovecs())
        q_.unregister_buffer(v.iov_base);
}

void BypassJobIo::prep(std::uint32_t slot, bool write, std::span<std::byte> buf, std::uint64_t offset)
{
    const std::uint32_t shift = q_.ns().lba_shift;
    bp::IoRequest r;
    r.op = write ? bp::IoOp::Write : bp::IoOp::Read;
    r.slba = offset >> shift;
    r.nlb = static_cast<std::uint32_t>(buf.size() >> shift);
    r.buf = buf.data();
    r.len = buf.size();
    r.user_data = slot;
    bytes_[slot] = static_cast<int>(buf.size());
    // Posted when the job submits, as io_uring's SQEs: the job's clock
    // starts before the command leaves, never after.
    queued_.push_back(r);
}

void BypassJobIo::submit_and_reap(std::uint32_t min_complete,
                                  const std::function<void(std::uint32_t, int)>& done)
{
    std::uint32_t got = 0;
    const auto reap_some = [&](bool sleep) {
        const std::size_t n = sleep ? q_.wait(comps_, std::chrono::seconds(1)) : q_.poll(comps_);
        for (std::size_t i = 0; i < n; ++i) {
            const auto slot = static_cast<std::uint32_t>(comps_[i].user_data);
            done(slot, comps_[i].status.ok() ? bytes_[slot] : -EIO);
        }
        got += static_cast<std::uint32_t>(n);
    };
    for (const bp::IoRequest& r : queued_) {
        bp::IoStatus st;
        // Busy: the send queue waits for the provider (the job never has
        // more in flight than the queue's depth); a poll retires it, and
        // a queue that stays stuck fails, which ends the loop.
        while ((st = q_.submit(r)).kind == bp::IoStatus::Kind::Busy)
            reap_some(false);
        if (!st.ok()) {  // refused (the queue failed): the I/O fails
            done(static_cast<std::uint32_t>(r.user_data), -EIO);
            ++got;
        }
    }
    queued_.clear();
    do {
        // Nothing to wait for (min_complete 0): a look, never a sleep.
        reap_some(!busy_poll_ && got < min_complete);
    } while (got < min_complete && q_.in_flight() > 0);
}

std::string BypassJobIo::failure() const
{
    return q_.failed() ? "I/O queue failed: " + q_.failure() : std::string();
}

}  // namespace rblk::bench
