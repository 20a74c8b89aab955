// The application's handle on one I/O queue of a bypass controller: the
// asynchronous API. One thread drives one IoQueue (no locks): it submits
// NVM commands (read, write, flush, write zeroes, deallocate) to any of the
// controller's namespaces, as NVMe queues belong to the controller, and reaps
// their completions by busy polling (poll()) or by sleeping on the
// completion channel while the queue is idle (wait()). Nothing here throws;
// every outcome is an IoStatus.
//
// Data moves without a copy when it lives in memory the queue has
// registered: its buffer pool (alloc_buffer(), registered once at setup)
// or a buffer the caller registered (register_buffer(): the controller's
// memory map, which every queue of it shares). Writes up to the in-capsule size go in the command capsule
// itself. Other memory is refused (Invalid): SyncIo stages it through the
// pool.
#pragma once

#include "rblk/bypass/capsule.hpp"
#include "rblk/bypass/identify.hpp"
#include "rblk/bypass/memory.hpp"
#include "rblk/bypass/queue.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace rblk::bypass {

// What a queue's submissions used, since it was made (reconnects included).
struct IoQueueStats {
    std::uint64_t commands = 0;    // accepted by submit()
    std::uint64_t in_capsule = 0;  // data in the command capsule
    std::uint64_t pooled = 0;      // keyed SGL into the queue's pool
    std::uint64_t registered = 0;  // keyed SGL into a caller's registered buffer
    std::uint64_t doorbells = 0;   // ibv_post_send() calls that carried them
};

struct IoRequest {
    IoOp op = IoOp::Read;
    std::uint64_t slba = 0;     // read, write, write zeroes: first block
    std::uint32_t nlb = 0;      // blocks (1..65536); for Dsm: ranges (1..256) in buf
    void* buf = nullptr;        // read/write data, or Dsm's nvme_dsm_range array
    std::size_t len = 0;        // bytes at buf: nlb blocks (read/write), nlb * 16 (Dsm)
    std::uint64_t user_data = 0;
    // The registration holding buf, when the caller keeps it
    // (IoQueue::registration()): checked to cover the data, and then no
    // lookup in the pool or the memory map. nullptr: looked up.
    const Registration* reg = nullptr;
    bool deallocate = false;    // write zeroes: may deallocate (DEAC)
    std::uint16_t ns = 0;       // which of the controller's namespaces() (an index)
};

using IoCompletion = QueueCompletion;

class IoQueue {
public:
    // `map`: the registrations of the controller's protection domain,
    // which outlives the queue.
    IoQueue(ibv_pd* pd, MemoryMap& map, const ControllerInfo& ctrl, std::vector<NamespaceInfo> namespaces,
            std::uint16_t depth);
    IoQueue(const IoQueue&) = delete;
    IoQueue& operator=(const IoQueue&) = delete;

    std::uint16_t depth() const { return depth_; }
    std::uint16_t in_flight() const { return q_ ? q_->in_flight() : 0; }
    std::uint32_t max_transfer() const { return max_transfer_; }
    std::uint32_t inline_max() const { return inline_max_; }
    const NamespaceInfo& ns(std::size_t i = 0) const { return ns_.at(i); }
    std::size_t nr_namespaces() const { return ns_.size(); }
    // The queue failed (or is being reconnected): submissions return QueueDown.
    bool failed() const { return !q_ || q_->failed(); }
    std::string failure() const { return q_ ? q_->failure() : "queue not connected"; }

    // A pool chunk of buffer_size() bytes, nullptr when all are taken;
    // give it back with free_buffer().
    std::byte* alloc_buffer() { return pool_.get(); }
    std::size_t buffer_size() const { return pool_.chunk_size(); }
    std::size_t buffers_free() const { return pool_.free_count(); }
    void free_buffer(std::byte* b) { pool_.put(b); }
    // Zero-copy I/O from the caller's memory, for every queue of the
    // controller (MemoryMap::add() and remove()): 0 or an errno.
    int register_buffer(const void* p, std::size_t len) { return map_.add(p, len); }
    void unregister_buffer(const void* p) { map_.remove(p); }
    bool is_registered(const void* p, std::size_t len) const
    {
        return pool_.contains(p, len) || map_.find(p, len);
    }
    // The caller's registration covering [p, p + len), for IoRequest::reg:
    // valid until unregister_buffer(p) (the map keeps its record).
    const Registration* registration(const void* p, std::size_t len) const { return map_.find(p, len); }

    // Queued for the next flush(), which poll(), wait() and arm_events()
    // do first (Queue::flush()).
    IoStatus submit(const IoRequest& r);
    void flush()
    {
        if (q_)
            q_->flush();
    }
    IoQueueStats stats() const
    {
        IoQueueStats s;
        s.commands = by_via_[0] + by_via_[1] + by_via_[2] + by_via_[3];
        s.in_capsule = by_via_[static_cast<int>(Via::InCapsule)];
        s.pooled = by_via_[static_cast<int>(Via::Pool)];
        s.registered = by_via_[static_cast<int>(Via::Registered)];
        s.doorbells = doorbells_detached_ + (q_ ? q_->doorbells() - doorbells_at_attach_ : 0);
        return s;
    }
    std::size_t poll(std::span<IoCompletion> out) { return q_ ? q_->poll(out) : 0; }
    std::size_t wait(std::span<IoCompletion> out, std::chrono::milliseconds timeout)
    {
        return q_ ? q_->wait(out, timeout) : 0;
    }

    // The completion channel for an event loop of the caller's (Queue's
    // event_fd(), arm_events(), take_events()); the descriptor changes at
    // each reconnect.
    int event_fd() const { return q_ ? q_->event_fd() : -1; }
    bool arm_events() { return q_ && q_->arm_events(); }
    bool events_armed() const { return q_ && q_->events_armed(); }
    bool has_ready() const { return q_ && q_->has_ready(); }
    void take_events()
    {
        if (q_)
            q_->take_events();
    }

    // Controller's side: the transport queue of this I/O queue, replaced at
    // each (re)connect; the namespaces as Identify says they are now.
    void attach(std::unique_ptr<Queue> q)
    {
        (void)detach();
        q_ = std::move(q);
        // The in-capsule size of this association: a reconnect to a
        // target that now takes less (IOCCSZ) must not send more.
        if (q_)
            inline_max_ = q_->config().inline_max;
        // Its Fabrics Connect rang before: the I/O commands' count from here.
        doorbells_at_attach_ = q_ ? q_->doorbells() : 0;
    }
    std::unique_ptr<Queue> detach()
    {
        if (q_)
            doorbells_detached_ += q_->doorbells() - doorbells_at_attach_;  // its count goes with it
        return std::move(q_);
    }
    Queue* transport() { return q_.get(); }
    void update_namespaces(const std::vector<NamespaceInfo>& ns) { ns_ = ns; }

private:
    // How a command's data went: an index of by_via_.
    enum class Via { None, InCapsule, Pool, Registered };

    std::uint16_t depth_;
    std::uint32_t max_transfer_;
    std::uint32_t inline_max_;
    std::vector<NamespaceInfo> ns_;  // never empty
    BufferPool pool_;
    MemoryMap& map_;
    std::unique_ptr<Queue> q_;
    // Commands accepted by submit(), by Via: one add per command (stats()
    // sums them), rather than four.
    std::array<std::uint64_t, 4> by_via_{};
    std::uint64_t doorbells_detached_ = 0;   // of the transport queues before q_
    std::uint64_t doorbells_at_attach_ = 0;  // q_->doorbells() when it was attached
};

// In-capsule data rblk sends at most per write (below IOCCSZ when that is larger).
inline constexpr std::uint32_t kInlineDataMax = 8192;
// The pool of a queue: chunks of min(max transfer, 128 KiB), one per
// command slot, 4 MiB at most (below the default RLIMIT_MEMLOCK of 8 MiB).
inline constexpr std::size_t kPoolChunkMax = 128 * 1024;
inline constexpr std::size_t kPoolBytesMax = 4 * 1024 * 1024;

}  // namespace rblk::bypass
