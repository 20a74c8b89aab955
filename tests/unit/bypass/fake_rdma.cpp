// See fake_rdma.hpp. Only what a Queue calls is here; anything else a
// test would reach resolves to the real libraries and fails for want of a
// device, which is loud enough.
#include "fake_rdma.hpp"

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <deque>
#include <vector>

#undef ibv_reg_mr  // verbs.h's inline dispatch: the function itself is what we define

namespace fake_rdma {
namespace {

int post_recv(ibv_qp*, ibv_recv_wr*, ibv_recv_wr**);
int post_send(ibv_qp*, ibv_send_wr*, ibv_send_wr**);
int poll_cq(ibv_cq*, int, ibv_wc*);
int req_notify_cq(ibv_cq*, int);

struct State {
    ibv_context ctx{};
    ibv_pd pd{};
    std::deque<rdma_cm_event*> events;
    int cm_read_errno = 0;
    int connect_errno = 0;
    int disconnects = 0;
    int send_posts = 0;
    int recv_posts = 0;
    std::vector<Posted> sends;
    std::vector<Posted> recvs;
    std::deque<ibv_wc> wcs;
    int live_mrs = 0;  // not reset: a test's regions may outlive reset()
    // The last CQ made and its channel; whether it is armed, and the
    // completions that become visible once its event is taken.
    ibv_cq* cq = nullptr;
    ibv_comp_channel* channel = nullptr;
    bool armed = false;
    std::deque<ibv_wc> on_wake;
    int arms = 0;
    int event_reads = 0;  // ibv_get_cq_event() calls
    int polls = 0;
    int cqs_made = 0;

    State()
    {
        ctx.ops.post_recv = post_recv;
        ctx.ops.post_send = post_send;
        ctx.ops.poll_cq = poll_cq;
        ctx.ops.req_notify_cq = req_notify_cq;
        pd.context = &ctx;
    }
};

State& state()
{
    static State s;
    return s;
}

int post_recv(ibv_qp*, ibv_recv_wr* wr, ibv_recv_wr**)
{
    ++state().recv_posts;
    for (; wr; wr = wr->next)
        state().recvs.push_back({wr->wr_id, wr->num_sge ? wr->sg_list[0].addr : 0, false});
    return 0;
}

int post_send(ibv_qp*, ibv_send_wr* wr, ibv_send_wr**)
{
    ++state().send_posts;
    for (; wr; wr = wr->next) {
        fake_rdma::Posted p{wr->wr_id, wr->num_sge ? wr->sg_list[0].addr : 0,
                            (wr->send_flags & IBV_SEND_SIGNALED) != 0, wr->num_sge};
        if (wr->num_sge > 1)
            p.data = wr->sg_list[1].addr, p.data_len = wr->sg_list[1].length, p.data_lkey = wr->sg_list[1].lkey;
        state().sends.push_back(p);
    }
    return 0;
}

// The armed CQ's event: its channel becomes readable, and the CQ needs
// arming again.
void raise_event()
{
    State& s = state();
    const std::uint64_t one = 1;
    if (s.channel && ::write(s.channel->fd, &one, sizeof(one)) != sizeof(one))
        return;
    s.armed = false;
}

int req_notify_cq(ibv_cq*, int)
{
    State& s = state();
    ++s.arms;
    s.armed = true;
    if (!s.on_wake.empty())
        raise_event();
    return 0;
}

int poll_cq(ibv_cq*, int n, ibv_wc* out)
{
    ++state().polls;
    int got = 0;
    for (auto& q = state().wcs; got < n && !q.empty(); q.pop_front())
        out[got++] = q.front();
    return got;
}

void push_event(rdma_cm_id* id, rdma_cm_event_type type)
{
    auto* ev = new rdma_cm_event{};
    ev->id = id;
    ev->event = type;
    state().events.push_back(ev);
}

int make_fd() { return ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

}  // namespace

void reset()
{
    State& s = state();
    for (rdma_cm_event* ev : s.events)
        delete ev;
    s.events.clear();
    s.cm_read_errno = 0;
    s.connect_errno = 0;
    s.disconnects = 0;
    s.send_posts = 0;
    s.recv_posts = 0;
    s.sends.clear();
    s.recvs.clear();
    s.wcs.clear();
    s.armed = false;
    s.on_wake.clear();
    s.arms = 0;
    s.event_reads = 0;
    s.polls = 0;
    s.cqs_made = 0;
}

void fail_cm_reads(int err) { state().cm_read_errno = err; }

void fail_connects(int err) { state().connect_errno = err; }

ibv_pd* pd() { return &state().pd; }

int disconnects() { return state().disconnects; }
int send_posts() { return state().send_posts; }
int recv_posts() { return state().recv_posts; }
const std::vector<Posted>& sends() { return state().sends; }
const std::vector<Posted>& recvs() { return state().recvs; }
void complete(const ibv_wc& wc)
{
    state().wcs.push_back(wc);
    if (state().armed)
        raise_event();
}

void complete_on_wake(const ibv_wc& wc)
{
    state().on_wake.push_back(wc);
    if (state().armed)
        raise_event();
}

int arms() { return state().arms; }
int event_reads() { return state().event_reads; }
int polls() { return state().polls; }
int cqs_made() { return state().cqs_made; }
int live_mrs() { return state().live_mrs; }

}  // namespace fake_rdma

using fake_rdma::make_fd;
using fake_rdma::state;

extern "C" {

rdma_event_channel* rdma_create_event_channel(void) { return new rdma_event_channel{make_fd()}; }

void rdma_destroy_event_channel(rdma_event_channel* ch)
{
    ::close(ch->fd);
    delete ch;
}

int rdma_create_id(rdma_event_channel* ch, rdma_cm_id** id, void* context, rdma_port_space ps)
{
    auto* i = new rdma_cm_id{};
    i->verbs = &state().ctx;
    i->channel = ch;
    i->context = context;
    i->ps = ps;
    *id = i;
    return 0;
}

int rdma_destroy_id(rdma_cm_id* id)
{
    delete id;
    return 0;
}

int rdma_resolve_addr(rdma_cm_id* id, sockaddr*, sockaddr*, int)
{
    fake_rdma::push_event(id, RDMA_CM_EVENT_ADDR_RESOLVED);
    return 0;
}

int rdma_resolve_route(rdma_cm_id* id, int)
{
    fake_rdma::push_event(id, RDMA_CM_EVENT_ROUTE_RESOLVED);
    return 0;
}

int rdma_set_option(rdma_cm_id*, int, int, void*, size_t) { return 0; }

int rdma_get_cm_event(rdma_event_channel*, rdma_cm_event** event)
{
    auto& s = state();
    if (s.cm_read_errno) {
        errno = s.cm_read_errno;
        return -1;
    }
    if (s.events.empty()) {
        errno = EAGAIN;
        return -1;
    }
    *event = s.events.front();
    s.events.pop_front();
    return 0;
}

int rdma_ack_cm_event(rdma_cm_event* event)
{
    delete event;
    return 0;
}

const char* rdma_event_str(rdma_cm_event_type) { return "a fake event"; }

int rdma_create_qp(rdma_cm_id* id, ibv_pd* pd, ibv_qp_init_attr* attr)
{
    auto* qp = new ibv_qp{};
    qp->context = pd->context;
    qp->pd = pd;
    qp->send_cq = attr->send_cq;
    qp->recv_cq = attr->recv_cq;
    qp->qp_type = attr->qp_type;
    id->qp = qp;
    return 0;
}

void rdma_destroy_qp(rdma_cm_id* id)
{
    delete id->qp;
    id->qp = nullptr;
}

int rdma_connect(rdma_cm_id* id, rdma_conn_param*)
{
    if (const int err = fake_rdma::state().connect_errno) {
        errno = err;
        return -1;
    }
    fake_rdma::push_event(id, RDMA_CM_EVENT_ESTABLISHED);
    return 0;
}

int rdma_disconnect(rdma_cm_id*)
{
    ++state().disconnects;
    return 0;
}

int ibv_query_device(ibv_context*, ibv_device_attr* attr)
{
    *attr = {};
    attr->max_qp_wr = 4096;
    attr->max_cqe = 65536;
    attr->max_qp_rd_atom = 16;
    attr->max_sge = 32;  // as rxe
    return 0;
}

ibv_comp_channel* ibv_create_comp_channel(ibv_context* ctx)
{
    auto* c = new ibv_comp_channel{};
    c->context = ctx;
    c->fd = make_fd();
    return c;
}

int ibv_destroy_comp_channel(ibv_comp_channel* c)
{
    ::close(c->fd);
    delete c;
    return 0;
}

ibv_cq* ibv_create_cq(ibv_context* ctx, int, void*, ibv_comp_channel* channel, int)
{
    auto* cq = new ibv_cq{};
    cq->context = ctx;  // ibv_poll_cq() and ibv_req_notify_cq() go through its ops
    cq->channel = channel;
    state().cq = cq;
    state().channel = channel;
    ++state().cqs_made;
    return cq;
}

int ibv_destroy_cq(ibv_cq* cq)
{
    if (state().cq == cq)
        state().cq = nullptr, state().channel = nullptr;
    delete cq;
    return 0;
}

ibv_mr* ibv_reg_mr(ibv_pd* pd, void* addr, size_t len, int)
{
    static std::uint32_t key = 0x100;
    ++state().live_mrs;
    key += 2;
    return new ibv_mr{.context = nullptr, .pd = pd, .addr = addr, .length = len, .handle = 0,
                      .lkey = key, .rkey = key + 1};
}

int ibv_dereg_mr(ibv_mr* mr)
{
    --state().live_mrs;
    delete mr;
    return 0;
}

int ibv_modify_qp(ibv_qp*, ibv_qp_attr*, int) { return 0; }

int ibv_get_cq_event(ibv_comp_channel* channel, ibv_cq** cq, void** ctx)
{
    std::uint64_t n = 0;
    ++state().event_reads;
    if (::read(channel->fd, &n, sizeof(n)) != sizeof(n)) {
        errno = EAGAIN;
        return -1;
    }
    auto& s = state();
    *cq = s.cq;
    *ctx = nullptr;
    for (; !s.on_wake.empty(); s.on_wake.pop_front())
        s.wcs.push_back(s.on_wake.front());
    return 0;
}

void ibv_ack_cq_events(ibv_cq*, unsigned int) {}

const char* ibv_wc_status_str(ibv_wc_status) { return "a fake status"; }

}  // extern "C"
