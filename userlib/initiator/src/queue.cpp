// One NVMe-oF queue over one RDMA queue pair; see queue.hpp.
#include "rblk/bypass/queue.hpp"

#include "rblk/bypass/capsule.hpp"
#include "rblk/bypass/poll_group.hpp"

#include <fcntl.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rblk::bypass {

namespace {

// A wr_id: the queue's member key in its poll group (0 alone) in the upper
// half, which is how the group finds the queue; then this bit for a SEND,
// and the SEND's SendWindow sequence number (its low 31 bits) or the
// RECV's index.
constexpr std::uint64_t kSendWr = 1ull << 31;
constexpr std::uint64_t kSeqMask = kSendWr - 1;
static_assert(SendWindow::kSeqBits == 31);
constexpr std::uint16_t kNoTag = 0xffff;
// Completions per ibv_poll_cq(): as many as a deep queue's burst (SPDK
// polls 128 at a time).
constexpr std::size_t kPollBatch = 128;
// IB CM reason of a reject by the peer's rdma_cm consumer (the target).
constexpr int kRejConsumerDefined = 28;

int ms(std::chrono::milliseconds d) { return static_cast<int>(std::max<std::int64_t>(d.count(), 1)); }

std::string qname(std::uint16_t qid) { return "qid " + std::to_string(qid) + ": "; }

// recv_batch 0 is 1, and at most the queue's size: more receives beyond
// it cost QP entries and memory for no fewer posts per response than a
// batch of `size` gives.
QueueConfig with_recv_batch(QueueConfig cfg)
{
    cfg.recv_batch = std::clamp<std::uint16_t>(cfg.recv_batch, 1, std::max<std::uint16_t>(cfg.size, 1));
    return cfg;
}

}  // namespace

Queue::Queue(const QueueConfig& cfg, const sockaddr* dst, const sockaddr* src)
    : cfg_(with_recv_batch(cfg)),
      channel_(make_event_channel()),
      id_(make_cm_id(channel_.get(), this)),
      table_(cfg.size),
      slots_(cfg.size),
      pend_wr_(cfg.size),
      pend_sge_(2 * static_cast<std::size_t>(cfg.size)),
      recv_wr_(nr_recvs()),
      recv_sge_(nr_recvs()),
      ready_(cfg.size)
{
    // What every SEND of a chain position has in common, set once.
    for (std::size_t i = 0; i < pend_wr_.size(); ++i) {
        pend_wr_[i].sg_list = &pend_sge_[2 * i];
        pend_wr_[i].opcode = IBV_WR_SEND;
    }
    if (rdma_resolve_addr(id_.get(), const_cast<sockaddr*>(src), const_cast<sockaddr*>(dst),
                          ms(cfg_.cm_timeout)) != 0) {
        throw Error(errno_message("cannot resolve the target address", errno));
    }
    CmEvent ev = wait_cm_event(channel_.get(), cfg_.cm_timeout + std::chrono::milliseconds(500));
    if (!ev || ev->event != RDMA_CM_EVENT_ADDR_RESOLVED) {
        if (ev && ev->status == -ENODEV)
            throw Error("no RDMA device on the way to the target address");
        throw Error(src ? "cannot reach the target address from host_traddr"
                        : "cannot resolve the target address");
    }
    ev.reset();
    if (cfg_.tos >= 0) {
        std::uint8_t tos = static_cast<std::uint8_t>(cfg_.tos);
        rdma_set_option(id_.get(), RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos));
    }
    if (rdma_resolve_route(id_.get(), ms(cfg_.cm_timeout)) != 0)
        throw Error(errno_message("cannot resolve a route to the target", errno));
    ev = wait_cm_event(channel_.get(), cfg_.cm_timeout + std::chrono::milliseconds(500));
    if (!ev || ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED)
        throw Error("cannot resolve a route to the target");
}

Queue::~Queue()
{
    if (connected_)
        disconnect();
    if (group_ && key_) {
        // The QP first: the group then drains what it left in the shared
        // CQ, before the memory its work requests name goes.
        qp_.reset();
        group_->leave(key_, group_cqe_);
    }
    if (cq_ && unacked_events_)
        ibv_ack_cq_events(cq_.get(), unacked_events_);
}

inline Completion* Queue::response(std::uint32_t idx) const
{
    return reinterpret_cast<Completion*>(ring_.get() + cfg_.size * sizeof(Command)) + idx;
}

std::byte* Queue::bounce(std::uint16_t tag) const
{
    return ring_.get() + cfg_.size * sizeof(Command) + nr_recvs() * sizeof(Completion) +
           static_cast<std::size_t>(tag) * cfg_.inline_max;
}

void Queue::connect(ibv_pd* pd)
{
    ibv_context* verbs = id_->verbs;
    if (pd->context != verbs)
        throw Error("I/O queue resolved to another RDMA device");
    ibv_device_attr attr{};
    if (ibv_query_device(verbs, &attr) != 0)
        throw Error(errno_message("cannot query the RDMA device", errno));
    const std::uint32_t sig_every = SendWindow::sig_every_for(cfg_.size);
    const std::uint32_t max_wr = static_cast<std::uint32_t>(std::max(attr.max_qp_wr, 0));
    const std::uint32_t sq_depth = std::min<std::uint32_t>(2u * cfg_.size + sig_every, max_wr);
    const std::uint32_t cq_depth = sq_depth + nr_recvs();
    if (sq_depth < cfg_.size + sig_every || nr_recvs() > max_wr ||
        cq_depth > static_cast<std::uint32_t>(std::max(attr.max_cqe, 0)))
        throw Error("queue size exceeds the RDMA device's limits");
    window_ = SendWindow(sq_depth, sig_every);
    data_send_tag_.assign(sq_depth, kNoTag);
    if (attr.max_sge < 2)
        throw Error("the RDMA device cannot send two buffers in one work request");

    if (cfg_.group) {
        cqp_ = cfg_.group->join(this, verbs, static_cast<int>(cq_depth), attr.max_cqe, key_);
        group_ = cfg_.group;
        group_cqe_ = static_cast<int>(cq_depth);
        key_bits_ = std::uint64_t{key_} << 32;
    } else {
        comp_.reset(ibv_create_comp_channel(verbs));
        if (!comp_)
            throw Error(errno_message("cannot create a completion channel", errno));
        const int flags = ::fcntl(comp_->fd, F_GETFL);
        if (flags < 0 || ::fcntl(comp_->fd, F_SETFL, flags | O_NONBLOCK) < 0)
            throw Error(errno_message("cannot set up the completion channel", errno));
        cq_ = create_owned_cq(verbs, static_cast<int>(cq_depth), this, comp_.get());
        if (!cq_)
            throw Error("cannot allocate RDMA queue resources (CQ)");
        cqp_ = cq_.get();
    }

    const std::size_t ring_bytes =
        cfg_.size * (sizeof(Command) + cfg_.inline_max) + std::size_t{nr_recvs()} * sizeof(Completion);
    ring_ = aligned_bytes(ring_bytes, "the queue's capsules");
    ring_mr_.reset(ibv_reg_mr(pd, ring_.get(), ring_bytes, IBV_ACCESS_LOCAL_WRITE));
    if (!ring_mr_)
        throw Error(errno_message("cannot register the queue's capsules", errno));

    ibv_qp_init_attr init{};
    init.send_cq = cqp_;
    init.recv_cq = cqp_;
    init.qp_type = IBV_QPT_RC;
    init.cap.max_send_wr = sq_depth;
    init.cap.max_recv_wr = nr_recvs();
    init.cap.max_send_sge = 2;
    init.cap.max_recv_sge = 1;
    if (rdma_create_qp(id_.get(), pd, &init) != 0)
        throw Error("cannot allocate RDMA queue resources (QP)");
    qp_ = QueuePairHandle(id_.get());

    CmRequest req{};
    req.recfmt = 0;
    req.qid = cfg_.qid;
    req.hrqsize = cfg_.size;
    req.hsqsize = static_cast<std::uint16_t>(cfg_.size - 1);
    rdma_conn_param param{};
    param.private_data = &req;
    param.private_data_len = sizeof(req);
    param.responder_resources = static_cast<std::uint8_t>(std::min(attr.max_qp_rd_atom, 255));
    param.initiator_depth = 0;  // the target reads and writes us, never the reverse
    param.flow_control = 1;
    param.retry_count = 7;
    param.rnr_retry_count = 7;
    if (rdma_connect(id_.get(), &param) != 0) {
        // iWARP (siw) makes its TCP connection inside the call: nobody
        // listening there is refused here, not by a REJECTED event.
        if (errno == ECONNREFUSED)
            throw Error(cm_reject_reason(false, nullptr, 0));
        throw Error(errno_message("cannot start the RDMA connection", errno));
    }
    CmEvent ev = wait_cm_event(channel_.get(), cfg_.connect_timeout);
    if (!ev)
        throw Error("target unreachable over RDMA (no answer to the connection request)");
    switch (ev->event) {
    case RDMA_CM_EVENT_ESTABLISHED: break;
    case RDMA_CM_EVENT_REJECTED:
        throw Error(cm_reject_reason(ev->status == kRejConsumerDefined, ev->param.conn.private_data,
                                     ev->param.conn.private_data_len));
    case RDMA_CM_EVENT_CONNECT_ERROR:
    case RDMA_CM_EVENT_UNREACHABLE: throw Error("target unreachable over RDMA");
    case RDMA_CM_EVENT_DEVICE_REMOVAL: throw Error("RDMA device removed");
    default:
        throw Error(std::string("unexpected RDMA CM event while connecting: ") +
                    rdma_event_str(ev->event));
    }
    CmReply rep{};
    if (ev->param.conn.private_data && ev->param.conn.private_data_len >= sizeof(rep))
        std::memcpy(&rep, ev->param.conn.private_data, sizeof(rep));
    ev.reset();
    connected_ = true;
    if (rep.crqsize && rep.crqsize < cfg_.size - 1)
        throw Error("target receive queue smaller than the host SQ");
    for (std::uint32_t i = 0; i < nr_recvs(); ++i) {
        recv_sge_[i] = {reinterpret_cast<std::uint64_t>(response(i)), sizeof(Completion), ring_mr_->lkey};
        recv_wr_[i] = {};
        recv_wr_[i].wr_id = key_bits_ | i;
        recv_wr_[i].sg_list = &recv_sge_[i];
        recv_wr_[i].num_sge = 1;
        queue_recv(i);
    }
    if (const int err = post_recvs())
        throw Error(errno_message("cannot post the receive buffers", err));
}

void Queue::disconnect() noexcept
{
    if (!connected_)
        return;
    connected_ = false;
    rdma_disconnect(id_.get());
    // The DISCONNECTED event, briefly: the target may hang up first (when
    // check_cm() took it already, there is none to wait for). A channel
    // that cannot be read only hides the event (see queue.hpp); the
    // destructor calls this and must not throw.
    if (peer_closed_)
        return;
    try {
        (void)wait_cm_event(channel_.get(), std::chrono::milliseconds(200));
    } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): nothing to tell, see above
    }
}

void Queue::check_cm()
{
    if (!connected_ || down())
        return;
    rdma_cm_event* raw = nullptr;
    while (!down() && rdma_get_cm_event(channel_.get(), &raw) == 0) {
        const CmEvent ev(raw);
        switch (ev->event) {
        case RDMA_CM_EVENT_DISCONNECTED:
            peer_closed_ = true;
            fail("target closed the connection");
            break;
        case RDMA_CM_EVENT_DEVICE_REMOVAL: fail("RDMA device removed"); break;
        default: break;  // TIMEWAIT_EXIT and the like: nothing to do
        }
    }
}

inline void Queue::queue_recv(std::uint32_t idx)
{
    ibv_recv_wr* wr = &recv_wr_[idx];
    wr->next = nullptr;
    if (recv_tail_)
        recv_tail_->next = wr;
    else
        recv_head_ = wr;
    recv_tail_ = wr;
    ++recv_chained_;
}

int Queue::post_recvs()
{
    ibv_recv_wr* head = recv_head_;
    recv_head_ = recv_tail_ = nullptr;
    recv_chained_ = 0;
    if (!head)
        return 0;
    ibv_recv_wr* bad = nullptr;
    return ibv_post_recv(qp_.get(), head, &bad);
}

IoStatus Queue::submit(const Command& cmd, const CapsuleData& data, std::uint64_t user_data)
{
    if (down())
        return {IoStatus::Kind::QueueDown, 0};
    const auto len = static_cast<std::uint32_t>(data.bytes.size());
    if (data.bytes.size() > cfg_.inline_max)
        return {IoStatus::Kind::Invalid, 0};
    if (window_.full()) [[unlikely]] {
        reap(cfg_.size);  // the signaled completion that retires the window may be in
        if (down())
            return {IoStatus::Kind::QueueDown, 0};
        if (window_.full()) {
            // Bounded: a provider that stops completing SENDs fails the queue.
            const auto now = CommandTable::Clock::now();
            if (window_full_since_ == CommandTable::Clock::time_point{})
                window_full_since_ = now;
            else if (now - window_full_since_ > cfg_.cmd_timeout)
                fail("the send queue stopped completing");
            return {down() ? IoStatus::Kind::QueueDown : IoStatus::Kind::Busy, 0};
        }
    }
    // No clock read here: the command's deadline starts at the next scan
    // (CommandTable::scan(), from poll()).
    const auto tag = table_.acquire();
    if (!tag)
        return {IoStatus::Kind::Busy, 0};
    // Built in its send slot: the caller's command is copied once.
    Command* c = command(*tag);
    *c = cmd;
    c->cid = table_.cid(*tag);
    if (len)
        c->dptr = in_capsule_sgl(len);
    slots_[*tag] = Slot{user_data, 0, 0, IoStatus::Kind::Ok, false};

    // Chained behind the SENDs not yet posted; flush() rings the doorbell.
    // A tag is in the chain at most once, so `size` entries always do.
    const bool caller_memory = len && data.lkey && !data.stable;
    const SendWindow::Slot ws = window_.take(caller_memory);
    ibv_sge* sge = &pend_sge_[2 * pend_count_];
    sge[0] = {reinterpret_cast<std::uint64_t>(c), sizeof(Command), ring_mr_->lkey};
    if (len && data.lkey) {
        sge[1] = {reinterpret_cast<std::uint64_t>(data.bytes.data()), len, data.lkey};
    } else if (len) {
        std::memcpy(bounce(*tag), data.bytes.data(), len);
        sge[1] = {reinterpret_cast<std::uint64_t>(bounce(*tag)), len, ring_mr_->lkey};
    }
    ibv_send_wr& wr = pend_wr_[pend_count_];
    wr.wr_id = key_bits_ | kSendWr | (ws.seq & kSeqMask);
    wr.next = nullptr;
    wr.num_sge = len ? 2 : 1;
    wr.send_flags = ws.signaled ? IBV_SEND_SIGNALED : 0;
    if (pend_count_ > 0)
        pend_wr_[pend_count_ - 1].next = &wr;
    ++pend_count_;
    if (group_ && !listed_post_)  // the group's flush() posts it
        group_->to_post(this);
    // The command ends on its response alone when the SEND reads only the
    // queue's memory or memory that outlives the connection (see
    // SendWindow); else on its SEND's completion too.
    if (caller_memory)
        data_send_tag_[ws.seq % window_.depth()] = *tag;
    else
        table_.on_send_done(*tag);
    return {};
}

void Queue::post_sends()
{
    const std::size_t n = pend_count_;
    pend_count_ = 0;
    if (down())
        return;  // their commands complete with QueueDown (fail())
    ibv_send_wr* bad = nullptr;
    const int r = ibv_post_send(qp_.get(), pend_wr_.data(), &bad);
    ++doorbells_;
    if (r != 0) {
        // The WRs from `bad` on never reached the QP; fail() ends their
        // commands, and the ones before them, with QueueDown.
        const auto lost = bad ? n - static_cast<std::size_t>(bad - pend_wr_.data()) : n;
        fail(errno_message("posting " + std::to_string(lost) + " of " + std::to_string(n) + " command(s)", r));
    }
}

// Inlined in both its callers (the reap's finish() and hand_out()): once
// per command, a call would cost a tenth of it.
[[gnu::always_inline]] inline void Queue::deliver(std::uint16_t tag, QueueCompletion& c)
{
    Slot& s = slots_[tag];
    c.user_data = s.user_data;
    c.result = s.result;
    c.status = s.forced != IoStatus::Kind::Ok ? IoStatus{s.forced, 0} : IoStatus::from_nvme(s.status);
    s.ready = false;
    table_.release(tag);
}

void Queue::finish(std::uint16_t tag)
{
    if (slots_[tag].ready)
        return;
    ++finished_;
    if (sink_->next != sink_->end) {
        // Straight into poll()'s array: nothing older waits in the ring
        // (poll() hands that out first), and no round trip through it.
        deliver(tag, *sink_->next++);
        return;
    }
    slots_[tag].ready = true;
    std::size_t i = ready_head_ + ready_count_++;
    if (i >= ready_.size())
        i -= ready_.size();
    ready_[i] = tag;
    if (group_ && !listed_ready_)  // the group's next poll hands it out
        group_->to_hand_out(this);
}

// A failed work request, or a receive that is not a response this queue
// can take: the queue fails, with what was wrong. Out of line, cold: the
// strings it builds would give handle_wc() a large frame for every I/O.
[[gnu::cold, gnu::noinline]] void Queue::bad_wc(const ibv_wc& wc)
{
    const bool send = (wc.wr_id & kSendWr) != 0;
    if (wc.status != IBV_WC_SUCCESS)
        fail(std::string(send ? "SEND" : "RECV") + " failed: " + ibv_wc_status_str(wc.status));
    else if (static_cast<std::uint32_t>(wc.wr_id) >= nr_recvs())
        fail("completion of an unknown receive");
    else if (wc.byte_len < sizeof(Completion))
        fail("short response (" + std::to_string(wc.byte_len) + " bytes)");
    else
        fail("target invalidated a key it was not given to invalidate");
}

[[gnu::cold, gnu::noinline]] void Queue::bad_cqe(CqeVerdict v, std::uint16_t cid)
{
    char hex[8];
    std::snprintf(hex, sizeof(hex), "0x%04x", cid);  // cid 0 too: not "0"
    fail(std::string(describe(v)) + " " + hex);
}

void Queue::send_done(std::uint64_t seq_bits)
{
    // Only signaled SENDs complete successfully: each retires itself and
    // the unsignaled ones before it.
    const std::uint64_t seq = window_.seq_from_bits(seq_bits);
    if (!window_.retire(seq)) {
        fail("completion of an unknown send");
        return;
    }
    window_full_since_ = {};  // the send queue moves
    // A SEND that read the caller's memory: its command may end now.
    std::uint16_t& t = data_send_tag_[seq % window_.depth()];
    if (t != kNoTag) {
        const std::uint16_t tag = t;
        t = kNoTag;
        table_.on_send_done(tag);
        if (table_.finished(tag))
            finish(tag);
    }
}

void Queue::handle_wc(const ibv_wc& wc)
{
    if (down())
        return;  // flushed work requests of a failed queue
    if (wc.status != IBV_WC_SUCCESS) [[unlikely]] {
        bad_wc(wc);
        return;
    }
    if (wc.wr_id & kSendWr) {
        send_done(wc.wr_id & kSeqMask);
        return;
    }
    const auto idx = static_cast<std::uint32_t>(wc.wr_id);
    if (idx >= nr_recvs() || wc.byte_len < sizeof(Completion) || (wc.wc_flags & IBV_WC_WITH_INV)) [[unlikely]] {
        bad_wc(wc);
        return;
    }
    const Completion cqe = *response(idx);
    queue_recv(idx);  // its buffer is read: back to the QP at the reap's end
    std::uint16_t tag = 0;
    const CqeVerdict v = table_.on_response(cqe.cid, tag);
    if (v != CqeVerdict::Ok) [[unlikely]] {
        bad_cqe(v, cqe.cid);
        return;
    }
    slots_[tag].status = completion_status(cqe);
    slots_[tag].result = cqe.result;
    if (table_.finished(tag))
        finish(tag);
}

void Queue::fail(const std::string& why)
{
    if (down())
        return;
    failure_ = qname(cfg_.qid) + why;
    failed_.store(true, std::memory_order_release);  // publishes failure_ (failed())
    if (group_)
        group_->member_failed();
    if (qp_.get()) {
        ibv_qp_attr a{};
        a.qp_state = IBV_QPS_ERR;
        ibv_modify_qp(qp_.get(), &a, IBV_QP_STATE);
    }
    for (std::uint16_t tag : table_.busy()) {
        if (slots_[tag].ready)
            continue;
        if (!table_.responded(tag))
            slots_[tag].forced = IoStatus::Kind::QueueDown;
        finish(tag);
    }
}

std::size_t Queue::hand_out(std::span<QueueCompletion> out)
{
    std::size_t n = 0;
    while (n < out.size() && ready_count_ > 0) {
        const std::uint16_t tag = ready_[ready_head_];
        if (++ready_head_ == ready_.size())
            ready_head_ = 0;
        --ready_count_;
        deliver(tag, out[n++]);
    }
    return n;
}

[[gnu::cold, gnu::noinline]] void Queue::repost_failed(int err)
{
    fail(errno_message("re-posting the receives", err));
}

void Queue::reap(std::size_t enough)
{
    if (group_) {
        group_->reap_all();
        return;
    }
    if (!cq_)
        return;
    // What was submitted goes out before we look for what came back: a
    // full send window's signaled WR may be in the chain.
    flush();
    finished_ = 0;
    ibv_wc wcs[kPollBatch];
    int got;
    while ((got = ibv_poll_cq(cqp_, kPollBatch, wcs)) > 0) {
        for (int i = 0; i < got; ++i)
            handle_wc(wcs[i]);
        // Enough, or the CQ was empty after these: what comes later is
        // the next reap's, not another poll of an empty CQ now.
        if (finished_ >= enough || got < static_cast<int>(kPollBatch))
            break;
    }
    quiet_ = armed_ && got >= 0 && got < static_cast<int>(kPollBatch);
    repost();
    if (got < 0)
        fail("polling the completion queue failed");
}

std::size_t Queue::poll_cq(std::span<QueueCompletion> out)
{
    // What an earlier reap could not hand out goes first: less than `out`
    // holds (poll() took a ring that fills it alone), so the CQ follows.
    std::size_t n = ready_count_ ? hand_out(out) : 0;
    if (n < out.size()) {
        if (group_) [[unlikely]] {
            // The group's reap leaves this queue's completions in its ring.
            reap(0);
            n += hand_out(out.subspan(n));
        } else {
            own_sink_ = {out.data() + n, out.data() + out.size()};
            reap(out.size() - n);
            n = static_cast<std::size_t>(own_sink_.next - out.data());
            own_sink_ = {};
        }
    } else {
        flush();
    }
    // Deadlines: a scan of the slots ten times a second, not every poll.
    const auto now = CommandTable::Clock::now();
    if (now >= next_expiry_scan_ && !down())
        n = scan(now, out, n);
    return n;
}

// Out of poll_cq()'s way (its strings would give every poll their frame).
[[gnu::noinline]] std::size_t Queue::scan(CommandTable::Clock::time_point now, std::span<QueueCompletion> out,
                                          std::size_t n)
{
    next_expiry_scan_ = now + std::chrono::milliseconds(100);
    check_cm();
    if (!down() && cfg_.ctrl_epoch && cfg_.ctrl_epoch->load(std::memory_order_relaxed) != cfg_.epoch)
        fail("the controller failed (its keep-alive, or another of its queues)");
    if (down())
        return n + hand_out(out.subspan(n));  // what fail() ended
    if (const auto tag = table_.scan(now, cfg_.cmd_timeout)) {
        char cid[8];
        std::snprintf(cid, sizeof(cid), "0x%04x", table_.cid(*tag));
        fail(std::string("command timed out (cid ") + cid + ")");
        slots_[*tag].forced = IoStatus::Kind::Timeout;
        n += hand_out(out.subspan(n));  // what fail() ended
    }
    return n;
}

std::size_t Queue::wait_cq(std::span<QueueCompletion> out, std::chrono::milliseconds timeout)
{
    if (group_)
        return wait_grouped(out, timeout);
    // The clock only once the queue has nothing to hand out: most waits
    // of a busy queue return at the first poll. The coarse one, as the
    // deadlines': a sleep's bound needs no better than a tick.
    CommandTable::Clock::time_point deadline{};
    // Quiet: the poll would find nothing that has not raised an event
    // (at QD1 it never does: the command left a moment ago), so the sleep
    // comes first, and the poll after it. Deadlines and CM events wait for
    // that poll: a sleep is at most 200 ms.
    bool sleep_first = timeout.count() > 0 && quiet_ && ready_count_ == 0;
    for (;;) {
        // Never asleep on a command that has not left, or on one whose
        // post failed (it waits in the ring).
        const bool skip = sleep_first && (flush(), ready_count_ == 0);
        sleep_first = false;
        std::size_t n = skip ? 0 : poll(out);
        if (n || down() || !cqp_)
            return n;
        // A CQ still armed since the last event needs neither the arming
        // nor the poll behind it: what came since raised the event.
        if (!armed_) {
            if (!arm())
                return poll(out);
            n = poll(out);  // what came before the arming
            if (n || down())
                return n;
        }
        const int ms = next_sleep(deadline, timeout);
        if (ms < 0)
            return 0;
        // Wake up now and then for the command deadlines, and at once
        // when the target hangs up.
        pollfd p[2] = {{comp_->fd, POLLIN, 0}, {channel_->fd, POLLIN, 0}};
        const int r = ::poll(p, 2, ms);
        if (r > 0 && (p[1].revents & POLLIN))
            check_cm();
        // Armed again at once, before the poll that finds what woke us:
        // at QD1 the next wait then sleeps after one empty poll, not two
        // (SPDK re-arms in its event handler too).
        if (r > 0 && (p[0].revents & POLLIN) && take_event() && !arm())
            return poll(out);
    }
}

std::size_t Queue::wait_grouped(std::span<QueueCompletion> out, std::chrono::milliseconds timeout)
{
    CommandTable::Clock::time_point deadline{};
    for (;;) {
        const std::size_t n = poll(out);
        if (n || down())
            return n;
        const int ms = next_sleep(deadline, timeout);
        if (ms < 0)
            return 0;
        group_->sleep(*this, ms);
    }
}

bool Queue::arm()
{
    if (ibv_req_notify_cq(cqp_, 0) != 0) {
        fail("arming the completion queue failed");
        return false;
    }
    armed_ = true;
    quiet_ = false;  // until a poll behind the arming finds the CQ dry
    return true;
}

bool Queue::take_event()
{
    ibv_cq* cq = nullptr;
    void* ctx = nullptr;
    if (ibv_get_cq_event(comp_.get(), &cq, &ctx) != 0)
        return false;
    armed_ = false;  // an armed CQ raises one event, then needs arming again
    quiet_ = false;
    if (++unacked_events_ >= 64) {
        ibv_ack_cq_events(cq_.get(), unacked_events_);
        unacked_events_ = 0;
    }
    return true;
}

int Queue::event_fd() const { return comp_ ? comp_->fd : -1; }

bool Queue::arm_events()
{
    flush();  // never sleep on a command that has not left
    if (down() || !cq_ || ready_count_ > 0)  // no CQ of its own: its group's loop sleeps
        return false;
    return armed_ || arm();
}

void Queue::take_events()
{
    // One read: an arming raises one event, and the CQ is not armed again
    // until it is taken (armed_), so a second read would only find the
    // channel empty, a system call for nothing. Armed again before the
    // caller polls for what raised the event, as wait() does: its next
    // arm_events() then costs nothing.
    if (comp_ && take_event() && !down())
        (void)arm();
}

QueueCompletion Queue::execute(const Command& cmd, std::chrono::milliseconds timeout)
{
    const std::uint64_t me = next_exec_++;
    QueueCompletion result;
    result.user_data = me;
    const IoStatus st = submit(cmd, {}, me);
    if (!st.ok()) {
        result.status = st;
        return result;
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        QueueCompletion c[4];
        const std::size_t n = wait(c, std::chrono::milliseconds(100));
        for (std::size_t i = 0; i < n; ++i)
            if (c[i].user_data == me)
                return c[i];
        if (down() && ready_count_ == 0 && in_flight() == 0) {
            result.status = {IoStatus::Kind::QueueDown, 0};
            return result;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            fail("command timed out");
            result.status = {IoStatus::Kind::Timeout, 0};
            // What was in flight is handed out by later polls.
            return result;
        }
    }
}

}  // namespace rblk::bypass
