// The C face of librblk_bypass for the fio engine (rblk_fio_core.h): each
// filename's key=value words to one bypass::Controller that every fio
// thread opening the file shares, each thread with an IoQueue of its own
// in its poll group, and their submit and the group's poll/wait as C
// calls. A command's user_data is its queue's index in the group (upper
// half) and its slot there. Every exception of the setup path is caught
// here and becomes a one-line reason; the I/O path throws nothing
// (IoStatus).
//
// Reconnects, as the module's and SyncIo's: a command that comes back
// because its queue failed (QueueDown, Timeout) is held with every new
// one; once nothing is in flight on the queue, reap runs
// Controller::recover_queue() in fio's thread (the queue's only user),
// which fails the association for the controller's other threads and
// reconnects it (or finds it reconnected by one of them), then this
// thread's queue; and sends the held commands again, in order. It gives
// up at fast_io_fail_tmo: the held commands and the new ones fail with
// EIO, one reconnect attempt per reconnect_delay deciding whether the
// next one may go; at ctrl_loss_tmo every command fails for good. Each
// command keeps its request in a slot of its own (allocated once, at
// open) so that it can be sent again.
#include "rblk_fio_core.h"

#include "fio_filename.hpp"

#include <rblk/bypass/controller.hpp>
#include <rblk/host_identity.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bp = rblk::bypass;

namespace {

enum class State { Live, FailFast, Lost };

// One controller per filename, shared by the fio threads that open it,
// each with its own queue (Controller::add_io_queue()). A controller
// connected for fio's setup() waits in the registry for the threads that
// join it; the last one to leave shuts it down.
struct SharedCtrl {
    std::string spec;
    std::unique_ptr<bp::Controller> ctrl;
    std::chrono::seconds reconnect_delay{RBLK_DEFAULT_RECONNECT_DELAY};
    unsigned users = 0;  // threads with a queue on it; under registry_mu
};

// The shared controllers, by filename; their users and the controllers'
// add_io_queue() under registry_mu.
std::mutex registry_mu;
std::vector<std::shared_ptr<SharedCtrl>>& registry()
{
    static std::vector<std::shared_ptr<SharedCtrl>> r;
    return r;
}

}  // namespace

struct rblk_fio_queue {
    struct Slot {
        bp::IoRequest req;  // req.user_data: the queue's index << 32 | the slot's
        void* cookie = nullptr;
        nvme_dsm_range range{};  // a trim's: req.buf points here
    };

    std::shared_ptr<SharedCtrl> shared;
    bp::Controller* ctrl = nullptr;  // shared->ctrl's
    bp::IoQueue* q = nullptr;        // this thread's, on it
    rblk_fio_group* group = nullptr;
    std::vector<Slot> slots;            // one per command that may be in flight
    // Free slot indexes, a stack: free[0, nfree). Sized once (every slot):
    // a slot is freed once per use, so a push is a store.
    std::vector<std::uint32_t> free;
    std::size_t nfree = 0;
    std::vector<std::uint32_t> held;    // to send again after the reconnect, in order; capacity: every slot
    std::vector<std::uint32_t> failed;  // held ones that failed, for the next reap; capacity: every slot
    // The thread's view of the controller: whether its queue is up, or
    // its commands fail (fast, or for good).
    State state = State::Live;
    std::string why;                    // FailFast, Lost: what the commands fail with
    std::chrono::steady_clock::time_point next_attempt;  // FailFast
    // fio's buffers' registration in the controller's map, while the
    // group has them registered: each request names it (IoRequest::reg).
    const bp::Registration* reg = nullptr;
};
struct rblk_fio_group {
    bp::PollGroup group;  // first: outlives the queues, which leave it as they go (leave())
    std::vector<std::unique_ptr<rblk_fio_queue>> queues;
    bool event_mode = false;
    // Several files: their queues share the poll group. One file: its
    // queue polls its own CQ, as cheap as a group of one can never be.
    bool grouped = false;
    // A queue may have commands held for its reconnect, or held ones that
    // failed: set as one is held, cleared by the reap that finds none.
    bool attention = false;
    // fio's buffers, registered with the first `registered` queues'
    // controllers (which outlive the thread: unregistered before fio
    // frees them, lest a later allocation at the same address find the
    // old pages' registration).
    const void* reg = nullptr;
    std::size_t registered = 0;

    void flush()
    {
        if (grouped)
            group.flush();
        else
            queues.front()->q->flush();
    }
    std::size_t poll(std::span<bp::IoCompletion> out)
    {
        return grouped ? group.poll(out) : queues.front()->q->poll(out);
    }
    std::size_t wait(std::span<bp::IoCompletion> out, std::chrono::milliseconds timeout)
    {
        return grouped ? group.wait(out, timeout) : queues.front()->q->wait(out, timeout);
    }
    // What the last poll found, handed to fio from `next` on: fio takes
    // one completion per getevents, and a poll finds several, so they wait
    // here (their tags free again) rather than in the queues' rings. The
    // group is polled again only once they are all out. Room for every
    // queue's commands.
    std::vector<bp::IoCompletion> comps;
    std::size_t next = 0;
    std::size_t found = 0;
};

namespace {

void set_err(char* err, std::size_t len, const std::string& what)
{
    if (err && len)
        std::snprintf(err, len, "%s", what.c_str());
}

// The filename's options, with the host identity and the address resolved.
bp::ControllerOptions parse_spec(const char* spec)
{
    bp::ControllerOptions co = rblk::fio::parse_filename(spec ? spec : "");
    rblk::apply_host_identity(co.connect, rblk::load_host_identity());
    co.connect.validate();
    co.connect = rblk::resolve_traddr(co.connect);
    return co;
}

// One reconnect attempt for a queue failing fast, once reconnect_delay
// has passed since the last.
void try_recover(rblk_fio_queue* q)
{
    if (std::chrono::steady_clock::now() < q->next_attempt)
        return;
    try {
        if (q->ctrl->recover_queue(*q->q)) {
            q->state = State::Live;
            q->why.clear();
            return;
        }
    } catch (const std::exception& e) {
        q->state = State::Lost;
        q->why = e.what();
        return;
    }
    q->next_attempt = std::chrono::steady_clock::now() + q->shared->reconnect_delay;
}

// With nothing in flight on the queue: reconnect it (blocking, within the
// controller's deadlines), then send the held commands again, or fail them.
void recover_and_resend(rblk_fio_queue* q)
{
    if (q->state == State::Live) {
        const std::string failure = q->q->failed() ? q->q->failure() : std::string("the controller failed");
        try {
            if (!q->ctrl->recover_queue(*q->q)) {
                q->state = State::FailFast;
                q->why = "I/O failed after fast_io_fail_tmo: " + failure;
                q->next_attempt = std::chrono::steady_clock::now() + q->shared->reconnect_delay;
            }
        } catch (const std::exception& e) {
            q->state = State::Lost;
            q->why = e.what();
        }
    }
    if (q->state != State::Live) {
        if (!q->held.empty())  // why they fail with EIO, once per thread and queue
            std::fprintf(stderr, "rblk: %s: %s\n", q->shared->spec.c_str(), q->why.c_str());
        q->failed.insert(q->failed.end(), q->held.rbegin(), q->held.rend());
        q->held.clear();
        return;
    }
    std::size_t sent = 0;
    for (; sent < q->held.size(); ++sent) {
        const bp::IoStatus st = q->q->submit(q->slots[q->held[sent]].req);
        if (!st.ok())
            break;  // busy or down again: the rest stay held
    }
    q->held.erase(q->held.begin(), q->held.begin() + static_cast<std::ptrdiff_t>(sent));
}

// The filename's shared controller, connected (with no I/O queue yet) if
// no thread has it. `depth`: its queues' size, as the first asks. Throws.
// registry_mu held.
std::shared_ptr<SharedCtrl> find_or_connect(const char* spec, unsigned int depth)
{
    const std::string name(spec ? spec : "");
    for (const auto& c : registry())
        if (c->spec == name)
            return c;
    bp::ControllerOptions co = parse_spec(spec);
    // One slot more than fio keeps in flight, within what ConnectOptions
    // accepts (16 entries at least); a queue for each thread that may join.
    co.connect.queue_size = std::max<std::int64_t>(std::int64_t{depth} + 1, 16);
    co.connect.nr_io_queues = RBLK_NR_IO_QUEUES_MAX;
    co.io_queues_on_demand = true;
    auto c = std::make_shared<SharedCtrl>();
    c->spec = name;
    c->reconnect_delay = std::chrono::seconds(co.connect.reconnect_delay.value_or(RBLK_DEFAULT_RECONNECT_DELAY));
    c->ctrl = std::make_unique<bp::Controller>(co);
    registry().push_back(c);
    return c;
}

// The thread leaves its controller; the last one to leave shuts it down.
void leave(rblk_fio_queue* q)
{
    std::shared_ptr<SharedCtrl> c = std::move(q->shared);
    // Its disconnect waits for the CM: outside the registry's lock, which
    // other threads' joins take (the controller locks its own queues).
    c->ctrl->release_io_queue(*q->q);
    {
        std::lock_guard reg(registry_mu);
        if (--c->users > 0)
            return;
        auto& r = registry();
        r.erase(std::remove(r.begin(), r.end(), c), r.end());
    }
    try {
        c->ctrl->shutdown();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "rblk: shutdown: %s\n", e.what());
    }
}

// A trim: one range of up to 2^32-1 blocks, sent in the capsule (copied
// there: the range is not in fio's registered buffers). 0 or a negative errno.
int prepare_trim(rblk_fio_queue* q, rblk_fio_queue::Slot& slot, std::uint64_t slba, std::uint64_t nlb,
                 char* err, size_t errlen)
{
    if (!q->ctrl->info_now().has_dsm()) {
        set_err(err, errlen, "trim: the controller has no Dataset Management (ONCS)");
        return -EOPNOTSUPP;
    }
    if (q->q->inline_max() < sizeof(nvme_dsm_range)) {
        set_err(err, errlen, "trim: the target takes no in-capsule data for the range");
        return -EOPNOTSUPP;
    }
    if (nlb > 0xffffffffu) {
        set_err(err, errlen, "trim of " + std::to_string(nlb) + " blocks: over 2^32-1");
        return -EINVAL;
    }
    slot.range = {0, static_cast<std::uint32_t>(nlb), slba};
    slot.req.op = bp::IoOp::Dsm;
    slot.req.slba = 0;
    slot.req.nlb = 1;
    slot.req.buf = &slot.range;
    slot.req.reg = nullptr;
    slot.req.len = sizeof(nvme_dsm_range);
    return 0;
}

// Whether a queue has commands held for its reconnect, or held ones that
// failed to hand out.
bool troubled(const rblk_fio_group* g)
{
    for (const auto& q : g->queues)
        if (!q->failed.empty() || !q->held.empty())
            return true;
    return false;
}

bool holding(const rblk_fio_group* g)
{
    for (const auto& q : g->queues)
        if (!q->held.empty())
            return true;
    return false;
}

// Nothing in flight, held or failed anywhere: a reap can wait for nothing.
bool idle(const rblk_fio_group* g)
{
    for (const auto& q : g->queues)
        if (q->q->in_flight() || !q->held.empty() || !q->failed.empty())
            return false;
    return true;
}

std::string why_idle(const rblk_fio_group* g)
{
    for (const auto& q : g->queues) {
        if (q->state != State::Live)
            return q->why;
        if (q->q->failed())
            return q->q->failure();
    }
    return "nothing in flight";
}

}  // namespace

extern "C" {

int rblk_fio_probe(const char* spec, unsigned int depth, uint64_t* size, uint32_t* lba_size, char* err,
                   size_t errlen)
{
    try {
        std::lock_guard reg(registry_mu);
        const std::shared_ptr<SharedCtrl> c = find_or_connect(spec, depth);
        const bp::NamespaceInfo ns = c->ctrl->ns_now();
        *size = ns.size_bytes();
        *lba_size = ns.lba_size();
        return 0;
    } catch (const std::exception& e) {
        set_err(err, errlen, e.what());
    } catch (...) {
        set_err(err, errlen, "unknown error");
    }
    return -1;
}

struct rblk_fio_group* rblk_fio_group_new(int event_mode, unsigned int nr_files, char* err, size_t errlen)
{
    try {
        auto g = std::make_unique<rblk_fio_group>();
        g->event_mode = event_mode != 0;
        g->grouped = nr_files > 1;
        return g.release();
    } catch (const std::exception& e) {
        set_err(err, errlen, e.what());
    }
    return nullptr;
}

void rblk_fio_group_free(struct rblk_fio_group* g)
{
    if (!g)
        return;
    rblk_fio_unregister(g);
    for (auto& q : g->queues) {
        try {
            leave(q.get());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "rblk: %s\n", e.what());
        } catch (...) {
        }
    }
    g->queues.clear();
    delete g;  // after its queues left it
}

struct rblk_fio_queue* rblk_fio_open(struct rblk_fio_group* g, const char* spec, unsigned int depth, char* err,
                                     size_t errlen)
{
    try {
        auto h = std::make_unique<rblk_fio_queue>();
        g->queues.reserve(g->queues.size() + 1);  // the push below throws nothing once joined
        {
            std::lock_guard reg(registry_mu);
            std::shared_ptr<SharedCtrl> c = find_or_connect(spec, depth);
            h->q = &c->ctrl->add_io_queue(g->grouped ? &g->group : nullptr);
            ++c->users;
            h->ctrl = c->ctrl.get();
            h->shared = std::move(c);
        }
        h->group = g;
        g->queues.push_back(std::move(h));
        rblk_fio_queue* q = g->queues.back().get();
        const std::size_t n = std::max<std::size_t>(q->q->depth(), 1);
        const auto index = static_cast<std::uint64_t>(g->queues.size() - 1);
        q->slots.resize(n);
        q->free.resize(n);
        q->held.reserve(n);
        q->failed.reserve(n);
        for (std::size_t i = n; i-- > 0;) {
            q->slots[i].req.user_data = index << 32 | i;
            q->free[q->nfree++] = static_cast<std::uint32_t>(i);
        }
        g->comps.resize(g->comps.size() + n);
        return q;
    } catch (const std::exception& e) {
        set_err(err, errlen, e.what());
    } catch (...) {
        set_err(err, errlen, "unknown error");
    }
    return nullptr;
}

uint32_t rblk_fio_lba_size(const struct rblk_fio_queue* q)
{
    return q->q->ns().lba_size();
}

void rblk_fio_describe(const struct rblk_fio_queue* q, char* out, size_t len)
{
    const bp::IoQueueStats s = q->q->stats();
    std::snprintf(out, len,
                  "%llu command(s): %llu in-capsule, %llu through the pool, %llu through the "
                  "registered buffer, %llu without data, %llu doorbell(s); cntlid %u, %zu reconnect(s)",
                  static_cast<unsigned long long>(s.commands), static_cast<unsigned long long>(s.in_capsule),
                  static_cast<unsigned long long>(s.pooled), static_cast<unsigned long long>(s.registered),
                  static_cast<unsigned long long>(s.commands - s.in_capsule - s.pooled - s.registered),
                  static_cast<unsigned long long>(s.doorbells), q->ctrl->cntlid(), q->ctrl->reconnects());
}

void rblk_fio_commit(struct rblk_fio_group* g) { g->flush(); }

int rblk_fio_register(struct rblk_fio_group* g, const void* p, size_t len)
{
    rblk_fio_unregister(g);
    g->reg = p;
    try {
        for (; g->registered < g->queues.size(); ++g->registered) {
            rblk_fio_queue* q = g->queues[g->registered].get();
            if (const int e = q->q->register_buffer(p, len))
                return e;
            q->reg = q->q->registration(p, len);
        }
        return 0;
    } catch (const std::bad_alloc&) {
        return ENOMEM;
    } catch (...) {
        return EINVAL;
    }
}

void rblk_fio_unregister(struct rblk_fio_group* g)
{
    for (; g->registered > 0; --g->registered) {
        rblk_fio_queue* q = g->queues[g->registered - 1].get();
        q->reg = nullptr;
        q->q->unregister_buffer(g->reg);
    }
}

int rblk_fio_submit(struct rblk_fio_queue* q, enum rblk_fio_op op, uint64_t offset, void* buf,
                    size_t len, void* cookie, char* err, size_t errlen)
{
    if (q->state != State::Live) [[unlikely]] {
        if (q->state == State::FailFast)
            try_recover(q);
        if (q->state != State::Live) {
            set_err(err, errlen, q->why);
            return -EIO;
        }
    }
    if (q->nfree == 0)
        return 1;
    // Filled in place: the slot is free until popped below, and keeps the
    // request for a resend after a reconnect (user_data, ns and deallocate
    // are set once, at open).
    const std::uint32_t idx = q->free[q->nfree - 1];
    rblk_fio_queue::Slot& slot = q->slots[idx];
    bp::IoRequest& r = slot.req;
    if (op == RBLK_FIO_FLUSH) {
        r.op = bp::IoOp::Flush;
        r.buf = nullptr;
        r.len = 0;
    } else {
        const std::uint32_t shift = q->q->ns().lba_shift;
        const std::uint64_t mask = (std::uint64_t{1} << shift) - 1;
        if ((offset & mask) || (len & mask) || len == 0) [[unlikely]] {
            set_err(err, errlen, "offset " + std::to_string(offset) + " length " + std::to_string(len) +
                                     ": not a multiple of the LBA size " + std::to_string(mask + 1));
            return -EINVAL;
        }
        if (op == RBLK_FIO_TRIM) {
            if (const int e = prepare_trim(q, slot, offset >> shift, len >> shift, err, errlen))
                return e;
        } else {
            r.op = op == RBLK_FIO_WRITE ? bp::IoOp::Write : bp::IoOp::Read;
            r.slba = offset >> shift;
            r.nlb = static_cast<std::uint32_t>(len >> shift);
            r.buf = buf;
            r.len = len;
            r.reg = q->reg;
        }
    }
    slot.cookie = cookie;
    if (!q->held.empty()) [[unlikely]] {  // a reconnect is due: after the ones before it
        --q->nfree;
        q->held.push_back(idx);
        q->group->attention = true;
        return 0;
    }
    const bp::IoStatus st = q->q->submit(r);
    if (st.ok() || st.retryable()) [[likely]] {
        --q->nfree;
        if (!st.ok()) {
            q->held.push_back(idx);  // the queue is down: sent again after the reconnect
            q->group->attention = true;
        }
        return 0;
    }
    if (st.kind == bp::IoStatus::Kind::Busy)
        return 1;
    try {
        set_err(err, errlen, st.describe() + (q->q->failed() ? ": " + q->q->failure() : std::string()));
    } catch (...) {
    }
    return st.kind == bp::IoStatus::Kind::Invalid ? -EINVAL : -EIO;
}

}  // extern "C"

namespace {

// rblk_fio_reap() and rblk_fio_reap_within(): inlined in each, so that the
// first (every getevents of fio's) has no timeout code.
[[gnu::always_inline]] inline int reap(rblk_fio_group* g, void** out, unsigned int min, unsigned int max,
                                       long timeout_ms, rblk_fio_failed_fn failed, char* err, size_t errlen)
{
    unsigned int got = 0;
    // The caller's timeout, read from the clock only when it has one (fio
    // passes none when it waits, zero when it only looks).
    std::chrono::steady_clock::time_point deadline{};
    std::chrono::milliseconds step(1000);
    if (timeout_ms > 0) {
        step = std::min(step, std::chrono::milliseconds(timeout_ms));
        deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    }
    const auto give = [&](rblk_fio_queue* q, std::uint32_t idx, int error) {
        void* cookie = q->slots[idx].cookie;
        out[got++] = cookie;
        q->free[q->nfree++] = idx;
        if (error) [[unlikely]]
            failed(cookie, error);
    };
    // What an earlier poll found first; the poll's promise (what was
    // submitted is posted) kept without one.
    if (g->next < g->found)
        g->flush();
    bool polled = false;
    while (got < max) {
        if (g->next < g->found) {
            const bp::IoCompletion& c = g->comps[g->next++];
            rblk_fio_queue* q = g->queues[c.user_data >> 32].get();
            const auto idx = static_cast<std::uint32_t>(c.user_data);
            if (c.status.ok()) [[likely]] {
                give(q, idx, 0);
            } else if (c.status.retryable() && q->state == State::Live) {
                q->held.push_back(idx);
                g->attention = true;
            } else {
                give(q, idx, EIO);
            }
            continue;
        }
        if (g->attention) [[unlikely]] {
            // The held commands that failed (fast_io_fail_tmo, ctrl_loss_tmo)
            // first; then a queue with held ones and nothing in flight
            // reconnects and sends them again.
            bool resent = false;
            for (auto& qp : g->queues) {
                rblk_fio_queue* q = qp.get();
                while (got < max && !q->failed.empty()) {
                    give(q, q->failed.back(), EIO);
                    q->failed.pop_back();
                }
                if (got >= max)
                    break;
                if (!q->held.empty() && q->q->in_flight() == 0) {
                    recover_and_resend(q);
                    resent = true;
                }
            }
            g->attention = troubled(g);
            if (got >= max)
                break;
            if (resent)
                continue;
        }
        // Enough: fio asks for what is there with min 0, so one poll then.
        if (got >= min && (got > 0 || polled))
            break;
        if (polled && timeout_ms >= 0 &&
            (timeout_ms == 0 || std::chrono::steady_clock::now() >= deadline)) [[unlikely]]
            break;  // the caller's timeout: fewer than min, and no error
        const std::span<bp::IoCompletion> span(g->comps.data(), g->comps.size());
        const std::size_t n = g->event_mode && got < min && timeout_ms != 0 && !(g->attention && holding(g))
                                  ? g->wait(span, step)
                                  : g->poll(span);
        g->next = 0;
        g->found = n;
        polled = true;
        if (got < min && n == 0 && idle(g)) {
            // Nothing left to wait for (fio asked too much).
            try {
                set_err(err, errlen, why_idle(g));
            } catch (...) {
            }
            break;
        }
    }
    return static_cast<int>(got);
}

}  // namespace

extern "C" {

int rblk_fio_reap(struct rblk_fio_group* g, void** out, unsigned int min, unsigned int max,
                  rblk_fio_failed_fn failed, char* err, size_t errlen)
{
    return reap(g, out, min, max, -1, failed, err, errlen);
}

int rblk_fio_reap_within(struct rblk_fio_group* g, void** out, unsigned int min, unsigned int max, long timeout_ms,
                         rblk_fio_failed_fn failed, char* err, size_t errlen)
{
    return reap(g, out, min, max, timeout_ms < 0 ? 0 : timeout_ms, failed, err, errlen);
}

}  // extern "C"
