// The bypass controller: connect, admin commands, keep-alive, recovery and
// shutdown; see controller.hpp.
#include "rblk/bypass/controller.hpp"

#include "rblk/bypass/capsule.hpp"

#include <netdb.h>

#include <algorithm>
#include <array>
#include <cstring>

namespace rblk::bypass {

namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

sockaddr_storage numeric_address(const std::string& host, std::int64_t port, const char* what)
{
    addrinfo hints{};
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    const std::string service = std::to_string(port);
    if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &res) != 0 || !res)
        throw Error(std::string(what) + " '" + host + "' is not an IP address");
    sockaddr_storage ss{};
    std::memcpy(&ss, res->ai_addr, std::min<std::size_t>(res->ai_addrlen, sizeof(ss)));
    ::freeaddrinfo(res);
    return ss;
}

// Generic admin failures: the command's name and libnvme's text.
[[noreturn]] void command_failed(const char* what, const QueueCompletion& c)
{
    throw Error(std::string(what) + " failed: " + c.status.describe());
}

}  // namespace

Controller::Controller(const ControllerOptions& opts) : opts_(opts), admin_timeout_(opts.admin_timeout)
{
    rblk::ConnectOptions& c = opts_.connect;
    if (!c.nr_io_queues)
        c.nr_io_queues = 1;
    try {
        c.validate();
    } catch (const std::exception& e) {
        throw Error(e.what());
    }
    if (c.is_discovery())
        throw Error("the bypass path serves I/O controllers, not discovery controllers");
    if (c.dhchap_secret || c.dhchap_ctrl_secret)
        throw Error("--dhchap-secret: the bypass path does not authenticate (DH-HMAC-CHAP) yet; "
                    "connect with --path kernel");
    if (!c.hostnqn)
        throw Error("no host NQN (set one, or let /etc/nvme/hostnqn provide it)");
    if (c.hostid) {
        const auto id = rblk::parse_uuid(*c.hostid);
        if (!id)
            throw Error("hostid '" + *c.hostid + "' is not a UUID");
        std::copy(id->begin(), id->end(), hostid_);
    }
    if (opts_.nsid == 0 || opts_.nsid == NVME_NSID_ALL)
        throw Error("nsid " + std::to_string(opts_.nsid) + " is not a namespace ID");
    dst_ = numeric_address(c.traddr, c.trsvcid, "traddr");
    if (c.host_traddr) {
        src_ = numeric_address(*c.host_traddr, 0, "host_traddr");
        has_src_ = true;
    }
    kato_ = seconds(c.kato.value_or(RBLK_DEFAULT_KATO));
    require_rdma_device();
    connect_all(true);
}

Controller::~Controller()
{
    try {
        shutdown();
    } catch (...) {  // NOLINT(bugprone-empty-catch): best effort, as a destructor must
    }
}

// Connects the admin queue, enables and identifies the controller, then
// connects the I/O queues: as asked on the first connect, as before on a
// reconnect.
void Controller::connect_all(bool first, bool io)
{
    std::lock_guard lock(admin_mu_);
    admin_epoch_ = epoch_.load(std::memory_order_relaxed);
    connect_admin_queue();
    enable_controller();
    const ControllerInfo info = identify_controller();
    const std::uint16_t granted = negotiate_io_queues(first);
    std::vector<std::string> notes;
    std::vector<NamespaceInfo> namespaces = identify_namespaces(first, info, notes);
    if (first)
        notes_ = std::move(notes);
    info_ = info;
    ns_ = std::move(namespaces);
    choose_io_queue_size(first);
    granted_ = granted;
    connect_io_queues(!io ? 0 : !first ? io_.size() : opts_.io_queues_on_demand ? 0 : granted, first);
    start_keep_alive();
}

// Admin commands and the connection's setup bounded by admin_timeout_ (a
// reconnect's deadline); the I/O queues take its CM limits and ToS too.
QueueConfig Controller::admin_queue_config() const
{
    QueueConfig cfg;
    cfg.qid = 0;
    cfg.size = kAdminQueueSize;
    cfg.cmd_timeout = admin_timeout_.load();
    cfg.cm_timeout = std::min(opts_.cm_timeout, admin_timeout_.load());
    cfg.connect_timeout = admin_timeout_.load();
    cfg.tos = static_cast<int>(opts_.connect.tos.value_or(-1));
    return cfg;
}

std::unique_ptr<Queue> Controller::open_queue(const QueueConfig& cfg) const
{
    const sockaddr* dst = reinterpret_cast<const sockaddr*>(&dst_);
    const sockaddr* src = has_src_ ? reinterpret_cast<const sockaddr*>(&src_) : nullptr;
    return std::make_unique<Queue>(cfg, dst, src);
}

// The admin queue, Connected (the protection domain and the admin pool
// come with the first one ever).
void Controller::connect_admin_queue()
{
    auto admin = open_queue(admin_queue_config());
    if (!pd_) {
        pd_.reset(ibv_alloc_pd(admin->verbs()));
        if (!pd_)
            throw Error("cannot allocate an RDMA protection domain");
        admin_pool_ = std::make_unique<BufferPool>(pd_.get(), 4096, 2);
        map_ = std::make_unique<MemoryMap>(pd_.get());
    }
    admin->connect(pd_.get());
    admin_ = std::move(admin);

    cntlid_ = 0xffff;
    connect_queue(*admin_, 0, kAdminQueueSize);
}

// CAP and VS, then CC.EN and CSTS.RDY within CAP.TO.
void Controller::enable_controller()
{
    cap_ = property_get(NVME_REG_CAP, true);
    vs_ = static_cast<std::uint32_t>(property_get(NVME_REG_VS, false));
    // CAP.TO: the worst case for CSTS.RDY to follow CC.EN, in 500 ms units.
    const milliseconds ready_limit(std::max<std::uint64_t>(NVME_CAP_TO(cap_), 1) * 500);
    cc_ = cc_enable();
    property_set(NVME_REG_CC, cc_);
    wait_csts(1u << NVME_CSTS_RDY_SHIFT, 1u << NVME_CSTS_RDY_SHIFT, ready_limit,
              "controller not ready within CAP.TO");
}

// Identify Controller, checked, with the namespace asked for within its count.
ControllerInfo Controller::identify_controller()
{
    auto id_ctrl = std::make_unique<nvme_id_ctrl>();
    identify(NVME_IDENTIFY_CNS_CTRL, 0, id_ctrl.get());
    auto checked = check_id_ctrl(*id_ctrl, cap_);
    if (auto* why = std::get_if<std::string>(&checked))
        throw Error("Identify Controller: " + *why);
    ControllerInfo info = std::get<ControllerInfo>(checked);
    if (!opts_.all_namespaces && info.nn && opts_.nsid > info.nn)
        throw Error("nsid " + std::to_string(opts_.nsid) + " beyond the controller's " +
                    std::to_string(info.nn) + " namespaces");
    return info;
}

// Set Features (Number of Queues): I/O queues as asked, as granted, as
// many as before on a reconnect (on demand: as asked again, for the
// threads still to join). Returns how many the controller grants.
std::uint16_t Controller::negotiate_io_queues(bool first)
{
    const auto want = static_cast<std::uint16_t>(first || opts_.io_queues_on_demand
                                                     ? std::max<std::size_t>(*opts_.connect.nr_io_queues, io_.size())
                                                     : io_.size());
    QueueCompletion sf = admin_cmd(set_features_num_queues(want));
    if (!sf.status.ok())
        command_failed("Set Features (Number of Queues)", sf);
    const auto granted = static_cast<std::uint16_t>(
        std::min<std::uint32_t>({want, static_cast<std::uint32_t>(sf.result & 0xffff) + 1u,
                                 static_cast<std::uint32_t>((sf.result >> 16) & 0xffff) + 1u}));
    if (!first && granted < io_.size())
        throw Error("the controller now grants " + std::to_string(granted) + " I/O queues, not " +
                    std::to_string(io_.size()));
    return granted;
}

// The namespaces to identify: those served before on a reconnect, else
// the one asked for or every active one.
std::vector<std::uint32_t> Controller::namespace_ids(bool first, const ControllerInfo& info)
{
    std::vector<std::uint32_t> nsids;
    if (!first) {
        for (const NamespaceInfo& n : ns_)
            nsids.push_back(n.nsid);
    } else if (opts_.all_namespaces) {
        auto list = std::make_unique<std::array<std::byte, NVME_IDENTIFY_DATA_SIZE>>();
        identify(NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, 0, list->data());
        auto listed = check_active_ns_list(list->data(), info.nn);
        if (auto* why = std::get_if<std::string>(&listed))
            throw Error(*why);
        nsids = std::get<std::vector<std::uint32_t>>(listed);
    } else {
        nsids.push_back(opts_.nsid);
    }
    return nsids;
}

// Identify Namespace of each, checked. Serving all, the module's way: the
// first kMaxNamespaces, inactive ones skipped, those it cannot serve
// skipped with a note; a reconnect finds the same LBA formats.
std::vector<NamespaceInfo> Controller::identify_namespaces(bool first, const ControllerInfo& info,
                                                           std::vector<std::string>& notes)
{
    const bool all = first && opts_.all_namespaces;
    const std::vector<std::uint32_t> nsids = namespace_ids(first, info);
    std::vector<NamespaceInfo> namespaces;
    auto id_ns = std::make_unique<nvme_id_ns>();
    for (const std::uint32_t nsid : nsids) {
        if (all && namespaces.size() == kMaxNamespaces) {
            notes.push_back("more than " + std::to_string(kMaxNamespaces) + " namespaces: serving the first " +
                            std::to_string(kMaxNamespaces));
            break;
        }
        identify(NVME_IDENTIFY_CNS_NS, nsid, id_ns.get());
        if (all && id_ns->nsze == 0)
            continue;  // listed, yet inactive: the module skips it too
        auto nchecked = check_id_ns(*id_ns, nsid);
        if (auto* why = std::get_if<std::string>(&nchecked)) {
            if (!all)
                throw Error("Identify Namespace: " + *why);
            notes.push_back("skipped " + *why);
            continue;
        }
        const NamespaceInfo ns = std::get<NamespaceInfo>(nchecked);
        if (!first && ns.lba_shift != ns_[namespaces.size()].lba_shift)
            throw Error("namespace " + std::to_string(ns.nsid) + " changed its LBA format across the reconnect");
        namespaces.push_back(ns);
    }
    if (namespaces.empty())
        throw Error(notes.empty() ? std::string("the controller has no active namespace")
                                  : "no namespace to serve: " + notes.back());
    return namespaces;
}

// The I/O queues' size: asked, within CAP.MQES (0's based) and MAXCMD; a
// reconnect keeps the size it had.
void Controller::choose_io_queue_size(bool first)
{
    auto qsize = static_cast<std::uint32_t>(opts_.connect.queue_size.value_or(RBLK_DEFAULT_QUEUE_SIZE));
    qsize = std::min<std::uint32_t>(qsize, NVME_CAP_MQES(cap_) + 1u);
    if (info_.maxcmd)
        qsize = std::min<std::uint32_t>(qsize, info_.maxcmd);
    if (qsize < 2)
        throw Error("controller allows I/O queues of " + std::to_string(qsize) + " entries (CAP.MQES)");
    if (!first && qsize < io_size_)
        throw Error("the controller now allows I/O queues of " + std::to_string(qsize) + " entries only");
    if (first)
        io_size_ = static_cast<std::uint16_t>(qsize);
}

// I/O queues 1..count, each Connected with the controller ID; the first
// connect makes their IoQueues, a reconnect gives them their new transport
// (those released stay down).
void Controller::connect_io_queues(std::size_t count, bool first)
{
    for (std::size_t i = 0; i < count; ++i) {
        if (!first && !seats_[i].in_use)
            continue;
        auto q = connect_io_queue(static_cast<std::uint16_t>(i + 1), first ? opts_.group : seats_[i].group);
        if (first) {
            io_.push_back(std::make_unique<IoQueue>(pd_.get(), *map_, info_, ns_, io_size_));
            seats_.push_back({opts_.group, true, 0});
        }
        seats_[i].epoch = admin_epoch_;
        io_[i]->update_namespaces(ns_);
        io_[i]->attach(std::move(q));
    }
}

// A transport queue for I/O queue `qid`, Connected. admin_mu_ held.
std::unique_ptr<Queue> Controller::connect_io_queue(std::uint16_t qid, PollGroup* group)
{
    QueueConfig qcfg = admin_queue_config();
    qcfg.qid = qid;
    qcfg.size = io_size_;
    qcfg.inline_max = std::min(in_capsule_capacity(info_.ioccsz_bytes / 16), kInlineDataMax);
    qcfg.cmd_timeout = opts_.io_timeout;
    qcfg.recv_batch = kIoRecvBatch;
    qcfg.group = group;
    qcfg.ctrl_epoch = &epoch_;
    qcfg.epoch = admin_epoch_;
    auto q = open_queue(qcfg);
    q->connect(pd_.get());
    connect_queue(*q, qid, io_size_);
    return q;
}

IoQueue& Controller::add_io_queue(PollGroup* group)
{
    std::lock_guard lock(admin_mu_);
    if (shut_down_ || !admin_live())
        throw Error("cannot add an I/O queue: the controller is " +
                    std::string(shut_down_ ? "shut down" : "failed (reconnecting)"));
    std::size_t i = 0;
    while (i < seats_.size() && seats_[i].in_use)
        ++i;
    if (i == seats_.size() && i >= granted_)
        throw Error("the controller grants " + std::to_string(granted_) + " I/O queue(s), all in use");
    auto q = connect_io_queue(static_cast<std::uint16_t>(i + 1), group);
    if (i == io_.size()) {
        io_.push_back(std::make_unique<IoQueue>(pd_.get(), *map_, info_, ns_, io_size_));
        seats_.push_back({});
    }
    seats_[i] = {group, true, admin_epoch_};
    io_[i]->update_namespaces(ns_);
    io_[i]->attach(std::move(q));
    return *io_[i];
}

void Controller::release_io_queue(IoQueue& q)
{
    std::lock_guard lock(admin_mu_);
    for (std::size_t i = 0; i < io_.size(); ++i) {
        if (io_[i].get() != &q || !seats_[i].in_use)
            continue;
        if (Queue* t = q.transport())
            t->disconnect();
        (void)q.detach();  // leaves its poll group, which may go with its thread
        seats_[i] = {nullptr, false, 0};
        return;
    }
}

QueueCompletion Controller::admin_cmd(const Command& cmd)
{
    if (!admin_)
        return {0, {IoStatus::Kind::QueueDown, 0}, 0};
    return admin_->execute(cmd, admin_timeout_.load());
}

void Controller::connect_queue(Queue& q, std::uint16_t qid, std::uint16_t size)
{
    std::byte* buf = admin_pool_->get();
    if (!buf)
        throw Error("internal error: no admin buffer for Connect");
    const ConnectData data = connect_data(hostid_, qid == 0 ? std::uint16_t{0xffff} : cntlid_.load(),
                                          opts_.connect.subnqn.c_str(),
                                          opts_.connect.hostnqn->c_str());
    std::memcpy(buf, &data, sizeof(data));
    Command cmd = bypass::fabrics_connect(qid, static_cast<std::uint16_t>(size - 1),
                                  static_cast<std::uint32_t>(kato_.count()));
    const RemoteRef ref = admin_pool_->ref(buf);
    cmd.dptr = keyed_sgl(ref.addr, sizeof(data), ref.rkey);
    const QueueCompletion c = q.execute(cmd, admin_timeout_.load());
    admin_pool_->put(buf);
    if (c.status.kind == IoStatus::Kind::Nvme)
        throw Error(connect_error(c.status.nvme, static_cast<std::uint32_t>(c.result)));
    if (q.peer_closed())  // the module's words for it (kmod/fabrics.c)
        throw Error(q.failure() + " during Connect");
    if (!c.status.ok())
        throw Error("Connect (qid " + std::to_string(qid) + ") failed: " +
                    (q.failed() ? q.failure() : c.status.describe()));
    if (qid == 0)
        cntlid_ = static_cast<std::uint16_t>(c.result);
}

std::uint64_t Controller::property_get(std::uint32_t reg, bool eight)
{
    const QueueCompletion c = admin_cmd(bypass::property_get(reg, eight));
    if (!c.status.ok())
        command_failed("Property Get", c);
    return eight ? c.result : (c.result & 0xffffffffu);
}

void Controller::property_set(std::uint32_t reg, std::uint32_t value)
{
    const QueueCompletion c = admin_cmd(bypass::property_set(reg, value, false));
    if (!c.status.ok())
        command_failed("Property Set", c);
}

void Controller::wait_csts(std::uint32_t mask, std::uint32_t want, milliseconds limit, const char* what)
{
    const auto deadline = Clock::now() + limit;
    for (;;) {
        const auto csts = static_cast<std::uint32_t>(property_get(NVME_REG_CSTS, false));
        if (csts & (1u << NVME_CSTS_CFS_SHIFT))
            throw Error("controller reports a fatal status (CSTS.CFS)");
        if ((csts & mask) == want)
            return;
        if (Clock::now() >= deadline)
            throw Error(std::string(what) + " (" + std::to_string(limit.count()) + " ms)");
        std::this_thread::sleep_for(milliseconds(20));
    }
}

void Controller::identify(std::uint8_t cns, std::uint32_t nsid, void* out)
{
    std::byte* buf = admin_pool_->get();
    if (!buf)
        throw Error("internal error: no admin buffer for Identify");
    Command cmd = bypass::identify(cns, nsid);
    const RemoteRef ref = admin_pool_->ref(buf);
    cmd.dptr = keyed_sgl(ref.addr, NVME_IDENTIFY_DATA_SIZE, ref.rkey);
    std::memset(buf, 0, NVME_IDENTIFY_DATA_SIZE);
    const QueueCompletion c = admin_cmd(cmd);
    std::memcpy(out, buf, NVME_IDENTIFY_DATA_SIZE);
    admin_pool_->put(buf);
    if (!c.status.ok())
        command_failed(cns == NVME_IDENTIFY_CNS_CTRL        ? "Identify Controller"
                       : cns == NVME_IDENTIFY_CNS_NS_ACTIVE_LIST ? "Identify (Active Namespace ID list)"
                                                                 : "Identify Namespace",
                       c);
}

void Controller::start_keep_alive()
{
    if (kato_.count() == 0)
        return;
    ka_ = std::jthread([this](std::stop_token st) { keep_alive_loop(st); });
}

void Controller::stop_keep_alive()
{
    if (ka_.joinable()) {
        ka_.request_stop();
        ka_cv_.notify_all();
        ka_.join();
    }
}

void Controller::keep_alive_loop(std::stop_token stop)
{
    // Twice per KATO, as the kernel's hosts do: one lost beat is no loss.
    const auto period = std::max(kato_ / 2, milliseconds(100));
    std::unique_lock lk(ka_mu_);
    while (!stop.stop_requested()) {
        if (ka_cv_.wait_for(lk, stop, period, [] { return false; }) || stop.stop_requested())
            break;
        std::lock_guard admin_lock(admin_mu_);
        if (!admin_ || admin_->failed()) {
            fail_association();
            return;
        }
        const QueueCompletion c = admin_->execute(keep_alive(), kato_);
        if (!c.status.ok()) {
            admin_->fail("keep-alive failed: " + c.status.describe());
            fail_association();
            return;
        }
    }
}

ControllerInfo Controller::info_now() const
{
    std::lock_guard lock(admin_mu_);
    return info_;
}

NamespaceInfo Controller::ns_now(std::size_t i) const
{
    std::lock_guard lock(admin_mu_);
    return ns_.at(i);
}

// Under admin_mu_: the admin queue is up, in the association of now.
bool Controller::admin_live() const
{
    return admin_ && !admin_->failed() && admin_epoch_ == epoch_.load(std::memory_order_relaxed);
}

bool Controller::failed() const
{
    {
        std::lock_guard lock(admin_mu_);
        if (!admin_live())
            return true;
    }
    for (std::size_t i = 0; i < io_.size(); ++i)
        if (seats_[i].in_use && io_[i]->failed())
            return true;
    return false;
}

std::string Controller::failure() const
{
    for (std::size_t i = 0; i < io_.size(); ++i)
        if (seats_[i].in_use && io_[i]->failed())
            return io_[i]->failure();
    std::lock_guard lock(admin_mu_);
    if (admin_ && admin_->failed())
        return admin_->failure();
    return last_error_.empty() ? std::string("not connected") : last_error_;
}

void Controller::teardown()
{
    stop_keep_alive();
    for (auto& q : io_)
        q->detach();  // destroyed: QP, CQ, connection
    std::lock_guard lock(admin_mu_);
    admin_.reset();
}

bool Controller::recover()
{
    if (shut_down_)
        throw Error("controller is shut down");
    if (!lost_since_) {
        lost_since_ = Clock::now();
        last_error_ = failure();
    }
    fail_association();
    teardown();
    return reconnect(nullptr, 0);
}

bool Controller::recover_queue(IoQueue& q)
{
    std::lock_guard turn(recovery_mu_);
    if (shut_down_)
        throw Error("controller is shut down");
    std::size_t seat = 0;
    {
        std::lock_guard lock(admin_mu_);
        while (seat < io_.size() && io_[seat].get() != &q)
            ++seat;
        if (seat == io_.size() || !seats_[seat].in_use)
            throw Error("internal error: recover_queue() of a queue the controller does not hold");
        // Another thread's turn reconnected the association: this queue's
        // failure is of the one before, or it has none.
        if (admin_live() && seats_[seat].epoch == admin_epoch_ && !q.failed())
            return true;
        if (!lost_since_) {
            lost_since_ = Clock::now();
            last_error_ = q.failed() ? q.failure() : std::string("the controller's association failed");
        }
        if (seats_[seat].epoch == epoch_.load(std::memory_order_relaxed))
            fail_association();  // the others' queues fail too, and their threads come here
    }
    (void)q.detach();
    return reconnect(&q, seat);
}

// A new association for the admin queue unless a turn before made it, then
// `own` connected in it. Throws Error.
void Controller::reconnect_own(IoQueue& own, std::size_t seat)
{
    bool live;
    {
        std::lock_guard lock(admin_mu_);
        live = admin_live();
    }
    if (!live) {
        stop_keep_alive();
        {
            std::lock_guard lock(admin_mu_);
            admin_.reset();
        }
        connect_all(false, false);
        ++reconnects_;
    }
    std::lock_guard lock(admin_mu_);
    auto t = connect_io_queue(static_cast<std::uint16_t>(seat + 1), seats_[seat].group);
    seats_[seat].epoch = admin_epoch_;
    own.update_namespaces(ns_);
    own.attach(std::move(t));
}

bool Controller::reconnect(IoQueue* own, std::size_t seat)
{
    const rblk::ConnectOptions& c = opts_.connect;
    const std::int64_t loss = c.ctrl_loss_tmo.value_or(RBLK_DEFAULT_CTRL_LOSS_TMO);
    const std::int64_t fast = c.fast_io_fail_tmo.value_or(RBLK_DEFAULT_FAST_IO_FAIL_TMO);
    const seconds delay(c.reconnect_delay.value_or(RBLK_DEFAULT_RECONNECT_DELAY));
    for (bool tried = false;; tried = true) {
        const auto t = Clock::now();
        if (loss >= 0 && t - *lost_since_ >= seconds(loss) && tried)
            throw Error("controller lost: no reconnect within ctrl_loss_tmo (" + std::to_string(loss) +
                        " s); last error: " + last_error_);
        if (fast >= 0 && t - *lost_since_ >= seconds(fast) && tried)
            return false;
        // An attempt, its commands bounded by the deadlines above: a
        // silent target must not hold the I/O past fast_io_fail_tmo.
        auto until = t + opts_.admin_timeout;
        if (loss >= 0)
            until = std::min(until, *lost_since_ + seconds(loss));
        if (fast >= 0)
            until = std::min(until, *lost_since_ + seconds(fast));
        admin_timeout_ = std::max(std::chrono::duration_cast<milliseconds>(until - t), milliseconds(1000));
        try {
            if (own) {
                reconnect_own(*own, seat);
            } else {
                connect_all(false);
                ++reconnects_;
            }
            admin_timeout_ = opts_.admin_timeout;
            lost_since_.reset();
            return true;
        } catch (const Error& e) {
            admin_timeout_ = opts_.admin_timeout;
            last_error_ = e.what();
            if (own) {
                (void)own->detach();
                fail_association();  // the admin queue's too: the next attempt makes a new one
            } else {
                teardown();
            }
        }
        // The next attempt, no later than the deadlines above.
        auto next = Clock::now() + delay;
        if (loss >= 0)
            next = std::min(next, *lost_since_ + seconds(loss));
        if (fast >= 0)
            next = std::min(next, *lost_since_ + seconds(fast));
        std::this_thread::sleep_until(next);
    }
}

void Controller::shutdown()
{
    if (shut_down_)
        return;
    shut_down_ = true;
    stop_keep_alive();
    std::string error;
    {
        std::lock_guard lock(admin_mu_);
        if (admin_ && !admin_->failed()) {
            try {
                property_set(NVME_REG_CC, cc_shutdown(cc_));
                wait_csts(NVME_CSTS_SHST_MASK << NVME_CSTS_SHST_SHIFT,
                          NVME_CSTS_SHST_CMPLT << NVME_CSTS_SHST_SHIFT, milliseconds(5000),
                          "controller did not complete its shutdown");
            } catch (const Error& e) {
                error = e.what();
            }
        }
    }
    for (auto& q : io_)
        if (Queue* t = q->transport())
            t->disconnect();
    {
        std::lock_guard lock(admin_mu_);
        if (admin_)
            admin_->disconnect();
    }
    teardown();
    if (!error.empty())
        throw Error(error);
}

}  // namespace rblk::bypass
