// The ublk block server over a bypass controller; see ublk_server.hpp.
#include "rblk/bypass/ublk_server.hpp"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <cstdio>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace rblk::bypass {

namespace {

// The io_uring user_data of what a queue's ring carries besides the tags.
// A device's largest request, and what the tags' buffers of one I/O
// queue may take for all the devices (pinned: registered for RDMA); the
// depth gives way to the budget when the namespaces are many. At the
// defaults (queue size 128, two namespaces) each device gets depth 128.
constexpr std::size_t kUblkIoMax = 128 * 1024;
constexpr std::size_t kUblkBuffersPerQueue = 64ull << 20;
// Transparent huge pages for the buffers where the kernel has them.
constexpr std::size_t kHugePage = 2ull << 20;

constexpr std::uint64_t kTagSpace = 1ull << 32;
constexpr std::uint64_t kCompPoll = kTagSpace + 1;  // the RDMA completion channel readable
constexpr std::uint64_t kKickPoll = kTagSpace + 2;  // the thread's eventfd readable
constexpr std::uint64_t kPollRemove = kTagSpace + 3;

void add_poll(io_uring* ring, int fd, std::uint64_t user_data)
{
    if (io_uring_sqe* sqe = io_uring_get_sqe(ring)) {
        io_uring_prep_poll_add(sqe, fd, POLLIN);
        io_uring_sqe_set_data64(sqe, user_data);
    }
}

void remove_poll(io_uring* ring, std::uint64_t user_data)
{
    if (io_uring_sqe* sqe = io_uring_get_sqe(ring)) {
        io_uring_prep_poll_remove(sqe, user_data);
        io_uring_sqe_set_data64(sqe, kPollRemove);
    }
}

void kick(int efd)
{
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(efd, &one, sizeof(one));
}

void drain(int efd)
{
    std::uint64_t v;
    [[maybe_unused]] const ssize_t n = ::read(efd, &v, sizeof(v));
}

UniqueFd make_eventfd()
{
    UniqueFd fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!fd)
        throw Error(std::string("cannot create an eventfd: ") + std::strerror(errno));
    return fd;
}

std::string errno_text(int negative) { return std::strerror(-negative); }

// What a request that succeeded commits: a read's or a write's bytes.
int ublk_result(const ublksrv_io_desc& iod)
{
    const std::uint32_t op = iod.op_flags & 0xff;
    return op == UBLK_IO_OP_READ || op == UBLK_IO_OP_WRITE ? static_cast<int>(iod.nr_sectors << 9) : 0;
}

}  // namespace

// A request's key, also its io_uring user_data: the device and the tag.
constexpr std::uint32_t key_of(std::size_t dev, std::uint16_t tag)
{
    return static_cast<std::uint32_t>(dev << 16) | tag;
}
constexpr std::size_t dev_of(std::uint32_t key) { return key >> 16; }
constexpr std::uint16_t tag_of(std::uint32_t key) { return static_cast<std::uint16_t>(key & 0xffff); }

// One I/O queue's thread: its ring, each device's ublk queue on it, the
// tags' buffers and the requests held; then what its loop keeps from one
// wake-up to the next, the thread's alone.
struct UblkServer::QueueState {
    std::unique_ptr<Ring> ring;
    std::vector<std::unique_ptr<UblkQueue>> uqs;  // per device
    // The tags' buffers, [device][tag], in `area`, which the controller's
    // memory map registers: data moves by keyed SGL with no copy.
    AlignedBytes area;
    std::size_t area_bytes = 0;
    // Its registration, named by every request (IoRequest::reg): no lookup.
    const Registration* area_reg = nullptr;
    std::vector<std::vector<std::byte*>> bufs;
    std::deque<std::uint32_t> held;               // request keys
    // Commits the ring refused (its SQ full and the kernel busy), retried
    // each turn: a dropped one would leave its tag, and the device, hung.
    // Reserved for every tag once: no allocation in the loop.
    std::vector<std::pair<std::uint32_t, int>> uncommitted;
    UniqueFd kick;                                // main thread -> this thread
    // The CPUs whose requests this queue gets (the driver's map), where the
    // thread runs so that a request and its commit stay on them; unset
    // when the driver would not say.
    cpu_set_t cpus{};
    bool pin = false;

    std::size_t index = 0;
    IoQueue* q = nullptr;              // the controller's I/O queue `index`, again after a recovery
    std::vector<IoCompletion> comps;   // sized once, as `fresh`: no allocation in the loop
    std::vector<std::uint32_t> fresh;  // the requests one wake-up brought
    std::size_t aborted = 0;           // tags the driver aborted (their device stops)
    bool comp_armed = false;           // a POLL_ADD on the completion channel is pending
    bool comp_fired = false;           // it ended (readable, or removed): take the event
    // The last wake-up brought requests alone, sent with the CQ armed and
    // nothing reaped waiting: whatever completes raises the event, so the
    // next turn posts them without polling the CQ (at QD1 it would find
    // it empty: the command has only just left).
    bool requests_only = false;
    bool parked = false;
    unsigned generation = 0;           // the generation_ this thread saw last

    io_uring* uring() { return ring->get(); }
    const ublksrv_io_desc& iod(std::uint32_t key) const { return uqs[dev_of(key)]->iod(tag_of(key)); }
    std::byte* buf(std::uint32_t key) const { return bufs[dev_of(key)][tag_of(key)]; }
    void complete(std::uint32_t key, int res)
    {
        if (!uqs[dev_of(key)]->commit(tag_of(key), res, buf(key)))
            uncommitted.emplace_back(key, res);
    }
    void retry_commits();
    // Whether the thread may use its IoQueue: not once parked for a
    // recovery, nor while the I/O fails fast.
    bool touches_queue(Phase ph) const { return ph == Phase::Live || (ph == Phase::Recovering && !parked); }
    void fail_held();
    void take_cqes();
};

const char* UblkServer::phase_name(Phase p)
{
    switch (p) {
    case Phase::Live: return "live";
    case Phase::Recovering: return "reconnecting";
    case Phase::FailFast: return "failfast";
    case Phase::Lost: return "lost";
    case Phase::Stopping: return "stopping";
    }
    return "?";
}

UblkServer::UblkServer(Controller& ctrl, UblkControl& control, const Options& opts)
    : ctrl_(ctrl), control_(control), opts_(opts), caps_(ublk_caps(ctrl.info())), notify_(make_eventfd())
{
    const std::size_t nq = ctrl_.nr_io_queues();
    const std::size_t ndev = ctrl_.namespaces().size();
    std::size_t depth = UBLK_MAX_QUEUE_DEPTH;
    std::size_t max_io = kUblkIoMax;
    for (std::size_t i = 0; i < nq; ++i) {
        IoQueue& q = ctrl_.io_queue(i);
        depth = std::min<std::size_t>(depth, q.depth());
        max_io = std::min<std::size_t>(max_io, q.max_transfer());
    }
    const auto pg = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    max_io = max_io / pg * pg;
    if (max_io > 0 && ndev > 0)
        depth = std::min(depth, kUblkBuffersPerQueue / (ndev * max_io));
    std::uint32_t lba_max = 0;
    for (const NamespaceInfo& ns : ctrl_.namespaces())
        lba_max = std::max(lba_max, ns.lba_size());
    if (depth == 0 || max_io < lba_max || max_io == 0)
        throw Error("the I/O queues are too small for " + std::to_string(ndev) + " ublk device(s) (depth " +
                    std::to_string(depth) + ", " + std::to_string(max_io) + " bytes per request)");
    depth_ = static_cast<std::uint16_t>(depth);
    max_io_ = static_cast<std::uint32_t>(max_io);
    if (!opts_.adopt.empty() && opts_.adopt.size() != ndev)
        throw Error("the controller now has " + std::to_string(ndev) +
                    " namespace(s) to serve, the devices to take back " + std::to_string(opts_.adopt.size()));
    // A destructor does not run for a constructor that throws: the devices go here.
    try {
        for (std::size_t k = 0; k < ndev; ++k) {
            if (opts_.adopt.empty())
                add_device(k);
            else
                adopt_device(opts_.adopt[k]);
        }
        make_queues();
    } catch (...) {
        delete_devices();
        release_buffers();
        throw;
    }
}

void UblkServer::add_device(std::size_t ns)
{
    ublksrv_ctrl_dev_info info{};
    info.nr_hw_queues = static_cast<std::uint16_t>(ctrl_.nr_io_queues());
    info.queue_depth = depth_;
    info.max_io_buf_bytes = max_io_;
    info.dev_id = UINT32_MAX;
    info.ublksrv_pid = ::getpid();
    if (const int r = control_.add_dev(info); r < 0)
        throw Error("cannot add a ublk device: " + errno_text(r));
    Device& d = devices_.emplace_back();
    d.id = info.dev_id;
    d.added = true;
    const ublk_params p = ublk_device_params(ctrl_.ns(ns), (ctrl_.info().vwc & 1) != 0, caps_, max_io_);
    if (const int r = control_.set_params(d.id, p); r < 0)
        throw Error("cannot set the parameters of ublk device " + std::to_string(d.id) + ": " + errno_text(r));
    const std::string cdev = "/dev/ublkc" + std::to_string(d.id);
    d.char_fd = UniqueFd(::open(cdev.c_str(), O_RDWR | O_CLOEXEC));
    if (!d.char_fd)
        throw Error("cannot open " + cdev + ": " + std::strerror(errno));
}

// The device keeps what its first server set: its queues, depth and
// largest request. This controller must serve as many queues, each of
// that depth and size; its parameters (the namespace's size and block
// size) the caller has compared.
void UblkServer::adopt_device(std::uint32_t id)
{
    const std::string name = "/dev/ublkb" + std::to_string(id);
    ublksrv_ctrl_dev_info info{};
    if (const int r = control_.get_dev_info(id, info); r < 0)
        throw Error("cannot take back " + name + ": " + errno_text(r));
    if (!(info.flags & UBLK_F_USER_RECOVERY))
        throw Error("cannot take back " + name + ": it was added without user recovery");
    if (info.nr_hw_queues != ctrl_.nr_io_queues() || info.queue_depth > depth_ || info.max_io_buf_bytes > max_io_)
        throw Error("cannot take back " + name + ": it has " + std::to_string(info.nr_hw_queues) +
                    " queue(s) of depth " + std::to_string(info.queue_depth) + " and " +
                    std::to_string(info.max_io_buf_bytes) + "-byte requests; this controller serves " +
                    std::to_string(ctrl_.nr_io_queues()) + " of depth " + std::to_string(depth_) + " and " +
                    std::to_string(max_io_));
    if (!devices_.empty() && info.queue_depth != depth_)
        throw Error("cannot take back " + name + ": its depth " + std::to_string(info.queue_depth) +
                    " differs from the other devices' " + std::to_string(depth_));
    depth_ = info.queue_depth;
    max_io_ = info.max_io_buf_bytes;
    // The driver quiesces a dead server's device from a work item once
    // its file is released: a moment after the process is gone.
    int r = 0;
    for (int tries = 0; tries < 100; ++tries) {
        if ((r = control_.start_recovery(id)) != -EBUSY)
            break;
        ::usleep(100 * 1000);
    }
    if (r < 0)
        throw Error("cannot take back " + name + ": START_USER_RECOVERY: " + errno_text(r) +
                    (r == -EBUSY ? " (its server still holds it)" : ""));
    Device& d = devices_.emplace_back();
    d.id = id;
    d.adopted = true;
    const std::string cdev = "/dev/ublkc" + std::to_string(id);
    d.char_fd = UniqueFd(::open(cdev.c_str(), O_RDWR | O_CLOEXEC));
    if (!d.char_fd)
        throw Error("cannot open " + cdev + ": " + std::strerror(errno));
}

void UblkServer::make_queues()
{
    for (std::size_t i = 0; i < ctrl_.nr_io_queues(); ++i) {
        auto s = std::make_unique<QueueState>();
        s->kick = make_eventfd();
        IoQueue& q = ctrl_.io_queue(i);
        s->bufs.resize(devices_.size());
        // The devices' queues share one map: the first device's says it.
        s->pin = control_.get_queue_affinity(devices_.front().id, static_cast<std::uint16_t>(i), s->cpus) == 0 &&
                 CPU_COUNT(&s->cpus) > 0;
        // The buffers, on huge pages where the kernel gives them.
        s->area_bytes = (devices_.size() * depth_ * std::size_t{max_io_} + kHugePage - 1) / kHugePage * kHugePage;
        void* area = nullptr;
        if (::posix_memalign(&area, kHugePage, s->area_bytes) != 0)
            throw Error("cannot allocate " + std::to_string(s->area_bytes >> 20) + " MiB for the ublk buffers");
        s->area.reset(static_cast<std::byte*>(area));
        (void)::madvise(area, s->area_bytes, MADV_HUGEPAGE);  // a hint: without THP, 4 KiB pages
        std::memset(area, 0, s->area_bytes);
        if (const int err = q.register_buffer(area, s->area_bytes)) {
            s->area.reset();
            throw Error("cannot register " + std::to_string(s->area_bytes >> 20) +
                        " MiB of ublk buffers with the RDMA device: " + std::strerror(err));
        }
        s->area_reg = q.registration(area, s->area_bytes);
        std::byte* next = s->area.get();
        for (auto& dev_bufs : s->bufs)
            for (std::uint16_t t = 0; t < depth_; ++t, next += max_io_)
                dev_bufs.push_back(next);
        queues_.push_back(std::move(s));
    }
}

void UblkServer::delete_devices()
{
    for (Device& d : devices_) {
        d.char_fd.reset();
        if (d.added && control_.del_dev(d.id) == 0)
            d.added = false;
    }
}

// After the devices: no request may use them any more.
void UblkServer::release_buffers()
{
    for (std::size_t i = 0; i < queues_.size(); ++i) {
        QueueState& s = *queues_[i];
        s.bufs.clear();
        if (s.area) {
            s.area_reg = nullptr;
            ctrl_.io_queue(i).unregister_buffer(s.area.get());
            s.area.reset();
        }
    }
}

UblkServer::~UblkServer()
{
    if (!threads_.empty())
        stop_device();
    for (auto& q : queues_) {
        q->uqs.clear();
        q->ring.reset();
    }
    delete_devices();
    release_buffers();
}

void UblkServer::start()
{
    for (std::size_t i = 0; i < queues_.size(); ++i)
        threads_.emplace_back([this, i] { queue_loop(i); });
    {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return fetched_ == queues_.size() || !setup_error_.empty(); });
        if (!setup_error_.empty())
            throw Error(setup_error_);
    }
    started_ = true;
    for (Device& d : devices_) {
        if (d.adopted) {
            if (const int r = control_.end_recovery(d.id, ::getpid()); r < 0)
                throw Error("cannot take back /dev/ublkb" + std::to_string(d.id) +
                            ": END_USER_RECOVERY: " + errno_text(r));
            d.added = true;
        } else if (const int r = control_.start_dev(d.id, ::getpid()); r < 0) {
            throw Error("cannot start ublk device " + std::to_string(d.id) + ": " + errno_text(r));
        }
    }
}

void UblkServer::set_phase(Phase p)
{
    phase_.store(p);
    kick_all();
}

void UblkServer::kick_all()
{
    for (auto& q : queues_)
        kick(q->kick.get());
}

void UblkServer::request_recovery()
{
    if (!want_recovery_.exchange(true))
        kick(notify_.get());
}

void UblkServer::stop_device()
{
    // Whatever is held fails now: the driver's stop waits for the I/O.
    const Phase p = phase_.load();
    if (p != Phase::Live)
        set_phase(Phase::Stopping);
    if (started_)
        for (const Device& d : devices_)
            if (d.added)
                (void)control_.stop_dev(d.id);  // one never started refuses: nothing to stop
    quit_.store(true);
    kick_all();
    threads_.clear();  // joins
    started_ = false;
    // Their descriptor mappings and rings hold /dev/ublkcN open, and
    // DEL_DEV waits until nothing does.
    for (auto& q : queues_) {
        q->uqs.clear();
        q->ring.reset();
    }
}

bool UblkServer::run(int stop_fd, const std::function<void(Phase, const std::string&)>& on_phase)
{
    const auto delay = std::chrono::milliseconds(std::max<std::int64_t>(opts_.reconnect_delay.count(), 1) * 1000);
    bool lost = false;
    std::string why;
    while (!lost) {
        const Phase ph = phase_.load();
        // Live: a tick a second for the keep-alive's verdict; failing
        // fast: the next reconnect attempt.
        int timeout = ph == Phase::FailFast ? static_cast<int>(delay.count()) : 1000;
        if (ph == Phase::Recovering)
            timeout = 200;
        pollfd fds[2] = {{stop_fd, POLLIN, 0}, {notify_.get(), POLLIN, 0}};
        const int n = ::poll(fds, 2, timeout);
        if (n < 0 && errno != EINTR)
            break;
        if (n > 0 && (fds[0].revents & POLLIN))
            break;
        if (n > 0 && (fds[1].revents & POLLIN))
            drain(notify_.get());
        if (ph == Phase::Live && (want_recovery_.load() || ctrl_.failed())) {
            why = ctrl_.failed() ? ctrl_.failure() : "an I/O queue failed";
            parked_.store(0);
            set_phase(Phase::Recovering);
            on_phase(Phase::Recovering, why);
            continue;
        }
        if (ph == Phase::Recovering && parked_.load() < queues_.size())
            continue;
        if (ph == Phase::Recovering || ph == Phase::FailFast) {
            // Every queue thread is out of its IoQueue (parked, or failing
            // its requests without touching it).
            bool live = false;
            try {
                live = ctrl_.recover();
            } catch (const Error& e) {
                why = e.what();
                lost = true;
                break;
            }
            if (live) {
                want_recovery_.store(false);
                generation_.fetch_add(1);
                set_phase(Phase::Live);
                on_phase(Phase::Live, "reconnected");
            } else if (ph == Phase::Recovering) {
                generation_.fetch_add(1);
                set_phase(Phase::FailFast);
                on_phase(Phase::FailFast, "fast_io_fail_tmo passed: I/O fails while reconnecting");
            }
        }
    }
    if (lost) {
        set_phase(Phase::Lost);
        on_phase(Phase::Lost, why);
    } else {
        on_phase(Phase::Stopping, "stopping");
    }
    stop_device();
    delete_devices();
    return !lost;
}

// One I/O queue's thread: the devices' requests, from the driver's
// fetch to its commit, until the devices stop.
void UblkServer::queue_loop(std::size_t index)
{
    QueueState& s = *queues_[index];
    if (!start_queue(s, index))
        return;
    const std::size_t tags = devices_.size() * depth_;
    // Until the driver aborted every tag, or the devices' stop returned
    // (no request can come any more).
    while (s.aborted < tags && !quit_.load()) {
        const Phase ph = phase_.load();
        rejoin_after_recovery(s);
        if (!s.uncommitted.empty()) [[unlikely]]  // not a call per wake-up
            s.retry_commits();
        if (s.touches_queue(ph)) {
            if (s.requests_only)
                s.q->flush();
            else
                reap(s);
        }
        s.requests_only = false;
        if (ph == Phase::Recovering && !s.parked)
            park(s);
        if (ph == Phase::Live)
            send_held(s);
        else if (ph == Phase::FailFast || ph == Phase::Lost || ph == Phase::Stopping)
            s.fail_held();
        // A request held while nothing is in flight waits for a SEND's
        // completion (the send window was full): that wakes us as well.
        const bool waiting = ph == Phase::Live && (s.q->in_flight() > 0 || !s.held.empty());
        if (waiting && !s.comp_armed && !opts_.busy_poll && !arm_completions(s))
            continue;
        if (!wait_ring(s, (opts_.busy_poll && waiting) || !s.uncommitted.empty()))
            break;
        s.take_cqes();
        // Only when the channel's poll ended: a read of it at every other
        // wake-up (a request's) would find it empty, a system call for
        // nothing. An event that came without a poll (the CQ armed but no
        // poll added) keeps the channel readable, and the next poll ends
        // at once.
        const bool fired = s.comp_fired;
        if (fired) {
            s.comp_fired = false;
            if (s.touches_queue(phase_.load()))
                s.q->take_events();
        }
        dispatch_fresh(s);
        // Completions wake us through the event, and each such wake-up
        // reaps (with the deadline scan): a stream of requests alone
        // cannot starve the scan, as requests come only as earlier ones
        // complete.
        s.requests_only = !fired && !s.fresh.empty() && s.held.empty() && s.q->events_armed() &&
                          !s.q->has_ready();
    }
    io_uring_submit(s.uring());
}

// The thread's ring and ublk queues, every tag fetched, start() told
// either way; false when the thread cannot serve.
bool UblkServer::start_queue(QueueState& s, std::size_t index)
{
    // Best effort: a cpuset that excludes those CPUs leaves the thread
    // where the scheduler puts it, which still serves.
    if (s.pin)
        (void)::pthread_setaffinity_np(::pthread_self(), sizeof(s.cpus), &s.cpus);
    try {
        open_ublk_queues(s, index);
    } catch (const Error& e) {
        queue_ready(e.what());
        return false;
    }
    if (const int r = fetch_requests(s); r < 0) {
        queue_ready("cannot fetch the requests of ublk queue " + std::to_string(index) + ": " + errno_text(r));
        return false;
    }
    queue_ready({});
    s.index = index;
    s.q = &ctrl_.io_queue(index);
    s.comps.resize(s.q->depth());
    s.fresh.reserve(devices_.size() * depth_);  // no allocation in the loop
    s.uncommitted.reserve(devices_.size() * depth_);
    s.generation = generation_.load();
    return true;
}

void UblkServer::open_ublk_queues(QueueState& s, std::size_t index)
{
    // Room for a commit per tag, the two polls and a poll removal. The
    // driver hands each request over by task work: with COOP_TASKRUN it
    // runs when this thread enters the ring anyway, not by an interrupt
    // of whatever it is doing; TASKRUN_FLAG makes liburing enter for it
    // when it only peeks (busy polling). This thread alone submits.
    const auto entries = static_cast<unsigned>(devices_.size() * depth_ + 8);
    try {
        s.ring = std::make_unique<Ring>(
            entries, IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_SINGLE_ISSUER,
            "a ublk queue");
    } catch (const Error&) {  // a kernel before 6.0: without them
        s.ring = std::make_unique<Ring>(entries, 0, "a ublk queue");
    }
    for (std::size_t d = 0; d < devices_.size(); ++d)
        s.uqs.push_back(std::make_unique<UblkQueue>(s.uring(), devices_[d].char_fd.get(),
                                                    static_cast<std::uint16_t>(index), depth_,
                                                    control_.ioctl_encode(), key_of(d, 0)));
}

// FETCH_REQ for every tag, and the poll of the thread's eventfd.
int UblkServer::fetch_requests(QueueState& s)
{
    for (std::size_t d = 0; d < devices_.size(); ++d)
        for (std::uint16_t t = 0; t < depth_; ++t)
            if (!s.uqs[d]->fetch(t, s.bufs[d][t]))
                return -EBUSY;
    add_poll(s.uring(), s.kick.get(), kKickPoll);
    return io_uring_submit(s.uring());
}

// Tells start() that a queue thread fetched its tags (`error` empty), or why it did not.
void UblkServer::queue_ready(const std::string& error)
{
    std::lock_guard lock(mu_);
    if (error.empty())
        ++fetched_;
    else
        setup_error_ = error;
    cv_.notify_all();
}

// A recovery ended: the thread unparks and takes its IoQueue as the
// controller now has it.
void UblkServer::rejoin_after_recovery(QueueState& s)
{
    if (const unsigned g = generation_.load(); g != s.generation) {
        s.generation = g;
        s.parked = false;
        s.q = &ctrl_.io_queue(s.index);
    }
}

// Fails the transport queue so that what is in flight comes back, and
// parks once nothing is: the main thread recovers with every queue parked.
void UblkServer::park(QueueState& s)
{
    if (Queue* t = s.q->transport(); t && !t->failed())
        t->fail("the controller is being reconnected");
    reap(s);
    if (s.q->in_flight() == 0) {
        if (s.comp_armed)
            remove_poll(s.uring(), kCompPoll);
        s.parked = true;
        parked_.fetch_add(1);
        kick(notify_.get());
    }
}

// Commits what completed; a command the queue's failure brought back is
// held for after the recovery. Returns how many completed.
std::size_t UblkServer::reap(QueueState& s)
{
    std::size_t total = 0;
    std::size_t n = 0;
    // A poll that leaves room in the array drained the CQ: no second poll
    // to find it empty (one a request at QD1).
    do {
        n = s.q->poll(s.comps);
        total += n;
        for (std::size_t i = 0; i < n; ++i) {
            const auto key = static_cast<std::uint32_t>(s.comps[i].user_data);
            const IoStatus& st = s.comps[i].status;
            if (st.ok())
                s.complete(key, ublk_result(s.iod(key)));
            else if (st.retryable()) {
                s.held.push_back(key);
                request_recovery();
            } else {
                s.complete(key, -EIO);
            }
        }
    } while (n > 0 && n == s.comps.size());
    return total;
}

// Sends the request of `key`; false when it must be held.
bool UblkServer::send(QueueState& s, std::uint32_t key)
{
    const std::size_t d = dev_of(key);
    IoRequest req;
    req.user_data = key;
    req.ns = static_cast<std::uint16_t>(d);
    req.reg = s.area_reg;
    if (const int err = ublk_translate(s.iod(key), ctrl_.ns(d), caps_, s.buf(key), max_io_, req)) {
        s.complete(key, err);
        return true;
    }
    const IoStatus st = s.q->submit(req);
    if (st.ok())
        return true;
    if (st.kind == IoStatus::Kind::Busy)
        return false;
    if (st.retryable()) {
        request_recovery();
        return false;
    }
    s.complete(key, -EIO);
    return true;
}

// Sends what is held, in order; whether any went.
bool UblkServer::send_held(QueueState& s)
{
    bool sent = false;
    while (!s.held.empty() && send(s, s.held.front())) {
        s.held.pop_front();
        sent = true;
    }
    return sent;
}

// Has the RDMA completion channel wake the ring; false when there is work
// first: completions waiting, or a SEND's completion reaped and room for
// what is held.
bool UblkServer::arm_completions(QueueState& s)
{
    // An arming in force since the last event (take_events() renews it)
    // needs no poll behind it: what completed since raised the event.
    const bool new_arming = !s.q->events_armed();
    if (!s.q->arm_events() || (new_arming && reap(s) > 0) || send_held(s))
        return false;
    add_poll(s.uring(), s.q->event_fd(), kCompPoll);
    s.comp_armed = true;
    return true;
}

// Submits the commits and polls queued, and waits for the ring a second
// at most (`spin`: not at all). False when the ring failed.
bool UblkServer::wait_ring(QueueState& s, bool spin)
{
    io_uring_cqe* cqe = nullptr;
    __kernel_timespec ts{spin ? 0 : 1, 0};
    const int r = io_uring_submit_and_wait_timeout(s.uring(), &cqe, spin ? 0 : 1, &ts, nullptr);
    if (r < 0 && r != -ETIME && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
        std::fprintf(stderr, "ublk queue %zu: io_uring: %s\n", s.index, std::strerror(-r));
        return false;
    }
    return true;
}

// The requests of this wake-up (fresh), by the phase each meets: sent,
// held for the recovery, or failed.
void UblkServer::dispatch_fresh(QueueState& s)
{
    for (const std::uint32_t key : s.fresh) {
        const Phase now = phase_.load();
        if (now == Phase::Live) {
            if (!send(s, key))
                s.held.push_back(key);
        } else if (now == Phase::Recovering) {
            s.held.push_back(key);
        } else {
            s.complete(key, -EIO);
        }
    }
}

void UblkServer::QueueState::retry_commits()
{
    std::size_t kept = 0;
    for (const auto& [key, res] : uncommitted)
        if (!uqs[dev_of(key)]->commit(tag_of(key), res, buf(key)))
            uncommitted[kept++] = {key, res};
    uncommitted.resize(kept);
}

void UblkServer::QueueState::fail_held()
{
    for (const std::uint32_t key : held)
        complete(key, -EIO);
    held.clear();
}

// What the ring brought: the driver's new requests (into `fresh`) and
// aborted tags, the completion channel's poll ended, a kick.
void UblkServer::QueueState::take_cqes()
{
    io_uring* r = uring();
    io_uring_cqe* cqe = nullptr;
    unsigned head;
    unsigned seen = 0;
    fresh.clear();
    io_uring_for_each_cqe(r, head, cqe)
    {
        ++seen;
        const std::uint64_t ud = io_uring_cqe_get_data64(cqe);
        if (ud < kTagSpace) {
            if (cqe->res == UBLK_IO_RES_OK)
                fresh.push_back(static_cast<std::uint32_t>(ud));
            else
                ++aborted;  // UBLK_IO_RES_ABORT: the device is stopping
        } else if (ud == kCompPoll) {
            comp_armed = false;
            comp_fired = true;
        } else if (ud == kKickPoll) {
            drain(kick.get());
            add_poll(r, kick.get(), kKickPoll);
        }
    }
    io_uring_cq_advance(r, seen);
}

}  // namespace rblk::bypass
