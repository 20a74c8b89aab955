// RAII helpers of rdma-core objects; see verbs.hpp.
#include "rblk/bypass/verbs.hpp"

#include "rblk/bypass/status.hpp"

#include <fcntl.h>
#include <poll.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace rblk::bypass {

std::string errno_message(const std::string& what, int err) { return what + ": " + std::strerror(err); }

namespace {

constexpr const char* kNoRdma =
    "no RDMA device (load an RDMA driver and rdma_ucm, e.g. modprobe rdma_rxe rdma_ucm)";

[[noreturn]] void no_rdma(int err)
{
    if (err == ENODEV || err == ENOENT || err == ENXIO)
        throw Error(kNoRdma);
    throw Error(errno_message("cannot open the RDMA connection manager", err));
}

struct DeviceListFree {
    void operator()(ibv_device** l) const { ibv_free_device_list(l); }
};

}  // namespace

CompletionQueue create_owned_cq(ibv_context* verbs, int cqe, void* context, ibv_comp_channel* channel)
{
    ibv_cq_init_attr_ex attr{};
    attr.cqe = static_cast<std::uint32_t>(cqe);
    attr.cq_context = context;
    attr.channel = channel;
    attr.wc_flags = IBV_WC_STANDARD_FLAGS;  // what ibv_poll_cq() fills in
    attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
    attr.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
    if (ibv_cq_ex* cq = ibv_create_cq_ex(verbs, &attr))
        return CompletionQueue(ibv_cq_ex_to_cq(cq));
    return CompletionQueue(ibv_create_cq(verbs, cqe, context, channel, 0));
}

void require_rdma_device()
{
    int n = 0;
    const std::unique_ptr<ibv_device*, DeviceListFree> list(ibv_get_device_list(&n));
    if (!list || n == 0)
        throw Error(kNoRdma);
}

EventChannel make_event_channel()
{
    EventChannel ch(rdma_create_event_channel());
    if (!ch)
        no_rdma(errno);
    const int flags = ::fcntl(ch->fd, F_GETFL);
    if (flags < 0 || ::fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK) < 0)
        throw Error(errno_message("cannot set up the RDMA event channel", errno));
    return ch;
}

CmId make_cm_id(rdma_event_channel* channel, void* context)
{
    rdma_cm_id* id = nullptr;
    if (rdma_create_id(channel, &id, context, RDMA_PS_TCP) != 0)
        no_rdma(errno);
    return CmId(id);
}

CmEvent wait_cm_event(rdma_event_channel* channel, std::chrono::milliseconds timeout)
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        rdma_cm_event* ev = nullptr;
        if (rdma_get_cm_event(channel, &ev) == 0)
            return CmEvent(ev);
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            throw Error(errno_message("reading RDMA CM events", errno));
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return nullptr;
        pollfd p{channel->fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) < 0 && errno != EINTR)
            throw Error(errno_message("waiting for RDMA CM events", errno));
    }
}

}  // namespace rblk::bypass
