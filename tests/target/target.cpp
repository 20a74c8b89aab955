#include "target.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>

namespace rt {

void throw_errno(const std::string& what)
{
    throw std::runtime_error(what + ": " + std::strerror(errno));
}

QueueReaper::QueueReaper() : thread_([this](std::stop_token st) { run(st); }) {}

QueueReaper::~QueueReaper()
{
    thread_.request_stop();
    thread_.join();
}

void QueueReaper::reap(std::unique_ptr<Queue> q)
{
    {
        const std::lock_guard g(lock_);
        dead_.push_back(std::move(q));
    }
    wake_.notify_one();
}

void QueueReaper::run(std::stop_token st)
{
    std::unique_lock g(lock_);
    for (;;) {
        wake_.wait(g, st, [this] { return !dead_.empty(); });
        if (dead_.empty())
            return;  // stop requested, nothing left
        std::unique_ptr<Queue> q = std::move(dead_.front());
        dead_.pop_front();
        g.unlock();
        q.reset();
        g.lock();
    }
}

Target::Target(const Options& opts)
    : opts_(opts), bad_(opts.mode, opts.after, opts.count), ns_(size_t(opts.size_mib) << 20)
{
    channel_.reset(check_ptr(rdma_create_event_channel(), "rdma_create_event_channel"));
    const int fl = fcntl(channel_->fd, F_GETFL);
    check_rc(fcntl(channel_->fd, F_SETFL, fl | O_NONBLOCK) < 0, "fcntl(O_NONBLOCK)");

    for (const auto& a : opts_.addrs) {
        ports_.push_back({a, nullptr});
        port_listen(ports_.back());
    }
    if (opts_.reservations)
        resv_init();
    std::string where;
    for (const auto& p : ports_)
        where += p.addr + ":" + std::to_string(opts_.port) + " ";
    log("listening on " + where + "subnqn " + opts_.subnqn + " misbehave " +
        std::string(mode_name(opts_.mode)) + (opts_.reservations ? " reservations" : ""));
}

void Target::port_listen(Port& p)
{
    rdma_cm_id* id = nullptr;
    check_rc(rdma_create_id(channel_.get(), &id, nullptr, RDMA_PS_TCP), "rdma_create_id");
    CmId listener(id);

    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    sin.sin_port = htons(opts_.port);
    if (inet_pton(AF_INET, p.addr.c_str(), &sin.sin_addr) != 1)
        throw std::runtime_error("not an IPv4 address: " + p.addr);
    check_rc(rdma_bind_addr(id, reinterpret_cast<sockaddr*>(&sin)), "rdma_bind_addr " + p.addr);
    check_rc(rdma_listen(id, 16), "rdma_listen");
    p.listener = std::move(listener);
}

// As nvmet's removal of a port's last subsystem link: no new connections,
// and the hosts connected through it lose their queues (and so their
// associations); the controllers' state (reservations) stays.
void Target::port_remove(size_t i)
{
    ports_[i].listener.reset();
    std::vector<rdma_cm_id*> ids;
    for (const auto& [id, port] : port_of_)
        if (port == i)
            ids.push_back(id);
    for (rdma_cm_id* id : ids) {
        rdma_disconnect(id);
        drop_queue(id);
    }
    log("port " + ports_[i].addr + ":" + std::to_string(opts_.port) + " removed: " +
        std::to_string(ids.size()) + " queues disconnected");
}

// The ports --ports-down-file names are removed, the others listen; read
// at most every 100 ms, since the loop turns once per completion batch.
void Target::ports_apply()
{
    if (opts_.ports_down_file.empty())
        return;
    const auto now = std::chrono::steady_clock::now();
    if (now - ports_checked_ < std::chrono::milliseconds(100))
        return;
    ports_checked_ = now;
    std::set<std::string> down;
    std::ifstream f(opts_.ports_down_file);
    for (std::string line; std::getline(f, line);)
        down.insert(line);
    for (size_t i = 0; i < ports_.size(); i++) {
        Port& p = ports_[i];
        if (down.count(p.addr) && p.listener) {
            port_remove(i);
        } else if (!down.count(p.addr) && !p.listener) {
            port_listen(p);
            log("port " + p.addr + ":" + std::to_string(opts_.port) + " restored");
        }
    }
}

void Target::log(const std::string& line)
{
    std::cout << line << std::endl;
}

Device& Target::device(ibv_context* ctx)
{
    auto& d = devices_[ctx];
    if (!d) {
        auto dev = std::make_unique<Device>();
        dev->ctx = ctx;
        check_rc(ibv_query_device(ctx, &dev->attr), "ibv_query_device");
        dev->pd.reset(check_ptr(ibv_alloc_pd(ctx), "ibv_alloc_pd"));
        dev->ns_mr.reset(check_ptr(ibv_reg_mr(dev->pd.get(), ns_.data(), ns_.size(),
                                              IBV_ACCESS_LOCAL_WRITE),
                                   "ibv_reg_mr(namespace)"));
        d = std::move(dev);
    }
    return *d;
}

void Target::on_connect_request(rdma_cm_id* id, const void* priv, uint8_t priv_len, uint8_t rd_depth)
{
    CmId owned(id);
    CmReq req{};
    CmRej rej{};
    const uint64_t nr = ++connections_;

    std::memcpy(&req, priv, std::min<size_t>(priv_len, sizeof(req)));
    if (priv_len < sizeof(req) || req.recfmt != 0)
        rej.sts = kRejInvalidRecfmt;
    else if (req.hsqsize + 1u > (req.qid ? kMaxRdmaQueueSize : 32u) || req.hsqsize < 1)
        rej.sts = kRejInvalidHsqsize;
    else if (bad_.is(Mode::reject_connect) && bad_.on_connection()) {
        log("misbehave: reject-connect: connection " + std::to_string(nr) + " qid " +
            std::to_string(req.qid) + " (#" + std::to_string(bad_.hits()) + ")");
        rej.sts = kRejNoResources;
    }
    if (rej.sts) {
        rdma_reject(id, &rej, sizeof(rej));
        return;  // the id goes with @owned
    }

    const uint16_t depth = req.hsqsize + 1;
    std::unique_ptr<Queue> q;
    try {
        q = std::make_unique<Queue>(id, device(id->verbs), req.qid, depth, opts_.inline_bytes);
    } catch (const std::exception& e) {
        log(std::string("cannot set up a queue: ") + e.what());
        rej.sts = kRejNoResources;
        rdma_reject(id, &rej, sizeof(rej));
        return;
    }
    (void)owned.release();  // the Queue has it

    CmRep rep{};
    rep.crqsize = depth;
    rdma_conn_param param{};
    param.private_data = &rep;
    param.private_data_len = sizeof(rep);
    param.responder_resources = 0;
    param.initiator_depth = uint8_t(std::min<int>(rd_depth, q->device().attr.max_qp_init_rd_atom));
    param.rnr_retry_count = 7;
    if (rdma_accept(id, &param)) {
        log(std::string("rdma_accept: ") + std::strerror(errno));
        return;  // the Queue, and with it the id, goes
    }
    if (bad_.is(Mode::disconnect_in_connect) && bad_.on_connection()) {
        log("misbehave: disconnect-in-connect: connection " + std::to_string(nr) + " qid " +
            std::to_string(req.qid) + " (#" + std::to_string(bad_.hits()) + ")");
        hang_up_[id] = true;
    }
    queues_[id] = std::move(q);
}

void Target::note_inflight(const Queue& q)
{
    auto& [max, sqsize] = max_inflight_[q.qid()];
    max = std::max(max, q.max_inflight());
    sqsize = q.sqsize();
    overflows_ += q.overflows();
    in_capsule_ += q.in_capsule();
}

void Target::stop()
{
    held_.clear();
    for (auto& [id, q] : queues_)
        note_inflight(*q);
    for (const auto& [qid, v] : max_inflight_)
        log("max_inflight qid=" + std::to_string(qid) + " value=" + std::to_string(v.first) +
            " sqsize=" + std::to_string(v.second));
    log("overflows " + std::to_string(overflows_));
    log("in_capsule " + std::to_string(in_capsule_));
    for (Port& p : ports_)
        p.listener.reset();
    // Tearing the queues down can take a minute: a queue this target hung
    // up on during Connect sits in ib_cm's TIMEWAIT, and destroying its
    // cm_id waits that out in the kernel (cm_destroy_id_wait_timeout). The
    // ports are free and the report is out: the test goes on, and a target
    // started meanwhile gets the log file to itself. An error from here on
    // shows only in the exit code.
    log("stopped");
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
        ::dup2(null, STDOUT_FILENO);
        ::dup2(null, STDERR_FILENO);
        ::close(null);
    }
    queues_.clear();
}

void Target::drop_queue(rdma_cm_id* id)
{
    hang_up_.erase(id);
    port_of_.erase(id);
    auto it = queues_.find(id);
    if (it != queues_.end()) {
        const Queue* q = it->second.get();
        std::erase_if(held_, [q](const Held& h) { return h.q == q; });
        for (auto& [cntlid, ctrl] : ctrls_) {
            if (ctrl.admin_q == q) {  // its held AERs go with it
                ctrl.admin_q = nullptr;
                ctrl.aer_slots.clear();
            }
        }
        note_inflight(*it->second);
        reaper_.reap(std::move(it->second));
        queues_.erase(it);
    }
}

void Target::on_cm_event(rdma_cm_event& ev)
{
    switch (ev.event) {
    case RDMA_CM_EVENT_CONNECT_REQUEST: {
        uint8_t priv[64] = {};
        const uint8_t len = std::min<uint8_t>(ev.param.conn.private_data_len, sizeof(priv));
        std::memcpy(priv, ev.param.conn.private_data, len);
        rdma_cm_id* id = ev.id;
        // Seen from this side: the RDMA READs the host lets us have.
        const uint8_t rd_depth = ev.param.conn.initiator_depth;
        size_t port = 0;
        while (port + 1 < ports_.size() && ports_[port].listener.get() != ev.listen_id)
            port++;
        rdma_ack_cm_event(&ev);
        on_connect_request(id, priv, len, rd_depth);
        if (queues_.count(id))
            port_of_[id] = port;
        return;
    }
    case RDMA_CM_EVENT_DISCONNECTED:
    case RDMA_CM_EVENT_REJECTED:
    case RDMA_CM_EVENT_CONNECT_ERROR:
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_DEVICE_REMOVAL: {
        rdma_cm_id* id = ev.id;
        rdma_ack_cm_event(&ev);
        if (queues_.count(id))
            rdma_disconnect(id);
        drop_queue(id);
        return;
    }
    default:
        rdma_ack_cm_event(&ev);
        return;
    }
}

void Target::on_command(Queue& q, uint32_t slot)
{
    if (bad_.on_command(false) == Action::drop) {  // silent: nobody is answered
        q.release(slot);
        return;
    }
    const Sqe& c = q.sqe(slot);
    if (c.opcode == kOpFabrics)
        fabrics(q, slot);
    else if (!q.connected)
        reply(q, slot, kScInvalidOpcode | kScDnr);
    else if (q.qid() == 0)
        admin(q, slot);
    else
        io(q, slot);
}

void Target::reply(Queue& q, uint32_t slot, uint16_t status, uint64_t result)
{
    Cqe cqe{};
    cqe.result = result;
    cqe.cid = q.sqe(slot).cid;
    cqe.status = uint16_t(status << 1);
    q.respond(slot, cqe);
}

int Target::release_held()
{
    const auto now = std::chrono::steady_clock::now();
    while (!held_.empty() && held_.front().due <= now) {
        const Held h = held_.front();
        held_.pop_front();
        reply(*h.q, h.slot, h.status);
    }
    if (held_.empty())
        return -1;
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(held_.front().due - now);
    return int(ms.count()) + 1;
}

void Target::run(const volatile bool& stop)
{
    while (!stop) {
        std::vector<pollfd> fds{{channel_->fd, POLLIN, 0}};
        std::vector<Queue*> order;
        for (auto& [id, q] : queues_) {
            fds.push_back({q->fd(), POLLIN, 0});
            order.push_back(q.get());
        }
        const int next = release_held();
        if (poll(fds.data(), fds.size(), next < 0 ? 200 : std::min(next, 200)) < 0) {
            if (errno == EINTR)
                continue;
            throw_errno("poll");
        }
        for (size_t i = 1; i < fds.size(); i++) {
            if (!(fds[i].revents & POLLIN))
                continue;
            Queue& q = *order[i - 1];
            q.process([&](uint32_t slot) { on_command(q, slot); });
        }
        rdma_cm_event* ev = nullptr;
        while (rdma_get_cm_event(channel_.get(), &ev) == 0)
            on_cm_event(*ev);
        ports_apply();
        if (ns_notices())
            ns_notice_poll();
        if (stale_ && !stale_fired_ && !opts_.trigger_file.empty() && access(opts_.trigger_file.c_str(), F_OK) == 0)
            stale_fire();
    }
}

}  // namespace rt
