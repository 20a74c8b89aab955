// RAII owners of the rdma-core objects the bypass initiator holds: the
// RDMA CM event channel and cm_id, the protection domain, the completion
// channel, the completion queue, the queue pair (created on its cm_id) and
// memory regions. Each is a std::unique_ptr with the matching destroy call
// as deleter, so every exit path (a failed connect included) frees what was
// made, in reverse order of the members that hold them. The small helpers
// that wait for one CM event with a deadline live here too.
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>

namespace rblk::bypass {

namespace detail {
struct EventChannelDelete { void operator()(rdma_event_channel* c) const { rdma_destroy_event_channel(c); } };
struct CmIdDelete { void operator()(rdma_cm_id* id) const { rdma_destroy_id(id); } };
struct PdDelete { void operator()(ibv_pd* p) const { ibv_dealloc_pd(p); } };
struct CompChannelDelete { void operator()(ibv_comp_channel* c) const { ibv_destroy_comp_channel(c); } };
struct CqDelete { void operator()(ibv_cq* c) const { ibv_destroy_cq(c); } };
struct MrDelete { void operator()(ibv_mr* m) const { ibv_dereg_mr(m); } };
struct CmEventAck { void operator()(rdma_cm_event* e) const { rdma_ack_cm_event(e); } };
}  // namespace detail

using EventChannel = std::unique_ptr<rdma_event_channel, detail::EventChannelDelete>;
using CmId = std::unique_ptr<rdma_cm_id, detail::CmIdDelete>;
using ProtectionDomain = std::unique_ptr<ibv_pd, detail::PdDelete>;
using CompletionChannel = std::unique_ptr<ibv_comp_channel, detail::CompChannelDelete>;
using CompletionQueue = std::unique_ptr<ibv_cq, detail::CqDelete>;
using MemoryRegion = std::unique_ptr<ibv_mr, detail::MrDelete>;
using CmEvent = std::unique_ptr<rdma_cm_event, detail::CmEventAck>;

// The QP of a cm_id (rdma_create_qp): destroyed before the cm_id goes.
class QueuePairHandle {
public:
    QueuePairHandle() = default;
    explicit QueuePairHandle(rdma_cm_id* id) : id_(id) {}
    QueuePairHandle(QueuePairHandle&& o) noexcept : id_(std::exchange(o.id_, nullptr)) {}
    QueuePairHandle& operator=(QueuePairHandle&& o) noexcept
    {
        if (this != &o) {
            reset();
            id_ = std::exchange(o.id_, nullptr);
        }
        return *this;
    }
    ~QueuePairHandle() { reset(); }
    void reset()
    {
        if (id_ && id_->qp)
            rdma_destroy_qp(id_);
        id_ = nullptr;
    }
    ibv_qp* get() const { return id_ ? id_->qp : nullptr; }

private:
    rdma_cm_id* id_ = nullptr;
};

// The next CM event on `channel` within `timeout`; nullptr when none came.
// Throws Error when reading the channel fails.
CmEvent wait_cm_event(rdma_event_channel* channel, std::chrono::milliseconds timeout);

// Throws Error "no RDMA device (...)" when the host has none: checked
// before anything else, so that the user reads that rather than an
// address error from a route over a plain network device.
void require_rdma_device();

// A new event channel (non-blocking) and cm_id on it. Throws Error with
// the reason the user can act on when there is no RDMA device or the
// rdma_cm device file is missing.
EventChannel make_event_channel();
CmId make_cm_id(rdma_event_channel* channel, void* context);

// A CQ of `cqe` entries for one polling thread: created single-threaded
// (ibv_create_cq_ex, IBV_CREATE_CQ_ATTR_SINGLE_THREADED), so a provider
// that locks its CQ (mlx5) does not on every poll, as a queue's owner
// needs no lock; a plain ibv_create_cq() where the provider refuses that
// (siw has no extended CQ). nullptr, errno set, when neither works.
CompletionQueue create_owned_cq(ibv_context* verbs, int cqe, void* context, ibv_comp_channel* channel);

// "what: strerror(errno)" for failing verbs calls.
std::string errno_message(const std::string& what, int err);

}  // namespace rblk::bypass
