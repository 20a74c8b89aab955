// A bypass controller: the association with one NVMe-oF/RDMA subsystem
// made from userspace, and the namespaces it serves (one, or every active
// one). The constructor
// connects (throwing bypass::Error with one line on any failure): the
// admin queue over rdma_cm, Fabrics Connect with the host NQN and host ID
// (resolved as `rblkctl connect` does: rblk::apply_host_identity()),
// Property Get CAP and VS, CC.EN then CSTS.RDY within CAP.TO, Identify
// Controller (checked: identify.hpp), Set Features Number of Queues,
// Identify Namespace of each (the active list first when all are served:
// as the module, it skips the ids Identify reports inactive, and those it
// cannot serve, with a note; a reconnect identifies the same ones again),
// then the I/O queues (each Connected with the
// controller ID), each an IoQueue for one application thread. With
// io_queues_on_demand, the constructor connects none: each thread that
// joins later connects its own (add_io_queue(), in its poll group) and
// gives it back as it leaves (release_io_queue()), so that threads share
// one controller (fio's numjobs), as the kernel's hosts share one per
// subsystem.
//
// Keep-alive: a thread of the controller's sends Keep Alive on the admin
// queue every KATO/2 (the admin queue is only touched under admin_mu_, by
// that thread and by the setup and shutdown paths). A keep-alive that fails
// marks the controller failed, as a failed I/O queue does.
//
// Recovery (ctrl_loss_tmo / fast_io_fail_tmo, as the module and nvme-cli
// mean them): a failed queue makes every command on it complete with
// QueueDown/Timeout; so does fail_association() every queue's, at its
// next poll; recover() then tears the association down and
// reconnects every reconnect_delay seconds. It gives up for good (throws)
// once ctrl_loss_tmo has passed since the failure (-1: never), and returns
// false (the controller still failed) once fast_io_fail_tmo has, so that
// the I/O waiting on it fails instead of waiting for the reconnect. The
// caller calls recover() with no I/O thread inside its IoQueue (SyncIo
// does), and serializes it with add_io_queue() and release_io_queue().
//
// The destructor shuts the controller down cleanly: CC.SHN normal, wait
// for CSTS.SHST complete, then disconnect every queue.
#pragma once

#include "rblk/bypass/identify.hpp"
#include "rblk/bypass/io_queue.hpp"
#include "rblk/bypass/memory.hpp"
#include "rblk/bypass/poll_group.hpp"
#include "rblk/bypass/queue.hpp"
#include "rblk/bypass/verbs.hpp"

#include <rblk/connect_options.hpp>

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace rblk::bypass {

// The most namespaces one controller serves when it serves all.
inline constexpr std::size_t kMaxNamespaces = 32;

struct ControllerOptions {
    // Address, NQNs, host ID, queues, KATO and the reconnect timeouts:
    // validated by ConnectOptions::validate(); hostnqn must be set
    // (apply_host_identity()). traddr must be an address literal
    // (rblk::resolve_traddr()). nr_io_queues defaults to 1 here.
    rblk::ConnectOptions connect;
    std::uint32_t nsid = 1;
    // Every active namespace (the first kMaxNamespaces) instead of nsid alone.
    bool all_namespaces = false;
    std::chrono::milliseconds io_timeout{30000};
    std::chrono::milliseconds admin_timeout{15000};
    std::chrono::milliseconds cm_timeout{3000};
    // The poll group the I/O queues join (poll_group.hpp): the thread that
    // owns it drives them, and runs the constructor and recover(). It
    // outlives the controller. nullptr: a CQ per queue.
    PollGroup* group = nullptr;
    // Connect no I/O queue yet: connect.nr_io_queues is what Set Features
    // asks for, the most that add_io_queue() may connect.
    bool io_queues_on_demand = false;
};

class Controller {
public:
    using Clock = std::chrono::steady_clock;

    explicit Controller(const ControllerOptions& opts);
    Controller(const Controller&) = delete;
    Controller& operator=(const Controller&) = delete;
    ~Controller();

    const ControllerInfo& info() const { return info_; }
    // The namespaces served, in nsid order; IoRequest::ns indexes them.
    const std::vector<NamespaceInfo>& namespaces() const { return ns_; }
    const NamespaceInfo& ns(std::size_t i = 0) const { return ns_.at(i); }
    std::uint64_t cap() const { return cap_; }
    std::uint32_t version() const { return vs_; }
    std::size_t nr_io_queues() const { return io_.size(); }
    std::uint16_t io_queue_size() const { return io_size_; }
    IoQueue& io_queue(std::size_t i) { return *io_.at(i); }
    // Any thread, beside a recover_queue() (which changes them).
    std::uint16_t cntlid() const { return cntlid_.load(std::memory_order_relaxed); }
    ControllerInfo info_now() const;
    NamespaceInfo ns_now(std::size_t i = 0) const;

    // A thread joins: an I/O queue of its own (a released one again, or
    // the next of those the controller grants), in `group` (nullptr: its
    // own CQ), Connected now and reconnected by recover() with the rest.
    // Throws Error: all granted queues in use, or the controller failed.
    IoQueue& add_io_queue(PollGroup* group);
    // The thread leaves: its queue disconnects, for add_io_queue() to reuse.
    void release_io_queue(IoQueue& q);

    // A queue, or the keep-alive, failed: recover() is due.
    bool failed() const;
    // Fails every queue of the association at its next poll (its commands
    // come back QueueDown, for recover() or recover_queue()).
    void fail_association() { epoch_.fetch_add(1, std::memory_order_relaxed); }
    std::string failure() const;
    // See the header comment. Returns true when live again.
    bool recover();
    // recover() for one thread's own queue, with nothing in flight on it,
    // beside threads that go on with theirs: its failure fails the
    // association (every queue comes here, or to recover(), after it);
    // the first thread to come reconnects the admin queue, a new
    // association, and each its own queue on it, as SPDK's poll groups
    // reconnect their qpairs. Same deadlines, same results. Threads may
    // call it at once (they take turns); not beside recover().
    bool recover_queue(IoQueue& q);
    std::size_t reconnects() const { return reconnects_.load(std::memory_order_relaxed); }
    // What the first connect left out and why (namespaces skipped), for the caller's log.
    const std::vector<std::string>& notes() const { return notes_; }

    // The clean shutdown of the destructor, with errors reported (throws).
    void shutdown();

private:
    // connect_all()'s steps, with admin_mu_ held (controller.cpp); with
    // io false, the admin queue's association alone.
    void connect_all(bool first, bool io = true);
    // recover()'s and recover_queue()'s loop: attempts within the
    // deadlines. `own`: recover_queue()'s queue, whose seat is `seat`.
    bool reconnect(IoQueue* own, std::size_t seat);
    void reconnect_own(IoQueue& own, std::size_t seat);
    bool admin_live() const;
    QueueConfig admin_queue_config() const;
    std::unique_ptr<Queue> open_queue(const QueueConfig& cfg) const;
    void connect_admin_queue();
    void enable_controller();
    ControllerInfo identify_controller();
    std::uint16_t negotiate_io_queues(bool first);
    std::vector<std::uint32_t> namespace_ids(bool first, const ControllerInfo& info);
    std::vector<NamespaceInfo> identify_namespaces(bool first, const ControllerInfo& info,
                                                   std::vector<std::string>& notes);
    void choose_io_queue_size(bool first);
    void connect_io_queues(std::size_t count, bool first);
    std::unique_ptr<Queue> connect_io_queue(std::uint16_t qid, PollGroup* group);
    void teardown();
    QueueCompletion admin_cmd(const Command& cmd);
    void connect_queue(Queue& q, std::uint16_t qid, std::uint16_t size);
    std::uint64_t property_get(std::uint32_t reg, bool eight);
    void property_set(std::uint32_t reg, std::uint32_t value);
    void wait_csts(std::uint32_t mask, std::uint32_t want, std::chrono::milliseconds limit,
                   const char* what);
    void identify(std::uint8_t cns, std::uint32_t nsid, void* out);
    void start_keep_alive();
    void stop_keep_alive();
    void keep_alive_loop(std::stop_token stop);

    ControllerOptions opts_;
    // Each admin command's limit: opts_.admin_timeout, less while a
    // reconnect attempt must end by a deadline.
    // (Atomic: recover_queue() sets it while another thread's add_io_queue() reads it.)
    std::atomic<std::chrono::milliseconds> admin_timeout_;
    sockaddr_storage dst_{};
    sockaddr_storage src_{};
    bool has_src_ = false;
    std::uint8_t hostid_[16]{};
    std::chrono::milliseconds kato_{0};

    ProtectionDomain pd_;                 // first: freed after everything on it
    std::unique_ptr<MemoryMap> map_;      // the caller's registrations; before the queues
    std::unique_ptr<BufferPool> admin_pool_;
    std::unique_ptr<Queue> admin_;
    std::vector<std::unique_ptr<IoQueue>> io_;
    // Each of io_'s: the poll group its reconnects join, and whether a
    // thread holds it (released ones stay down, for add_io_queue()).
    struct IoSeat {
        PollGroup* group = nullptr;
        bool in_use = true;
        std::uint32_t epoch = 0;  // of the association it was connected in
    };
    std::vector<IoSeat> seats_;
    std::uint16_t granted_ = 0;  // I/O queues Set Features granted
    mutable std::mutex admin_mu_;

    std::atomic<std::uint16_t> cntlid_{0xffff};
    std::uint64_t cap_ = 0;
    std::uint32_t vs_ = 0;
    std::uint32_t cc_ = 0;
    ControllerInfo info_;
    std::vector<NamespaceInfo> ns_;  // never empty once connected
    std::uint16_t io_size_ = 0;

    // The association's number: bumped by a failed keep-alive and
    // fail_association(), read by every I/O queue at its deadline scan
    // (QueueConfig::ctrl_epoch). admin_epoch_: the one the admin queue
    // connected in, under admin_mu_.
    std::atomic<std::uint32_t> epoch_{0};
    std::uint32_t admin_epoch_ = 0;
    std::mutex recovery_mu_;  // recover_queue()'s turns, and lost_since_ and last_error_ in them
    std::mutex ka_mu_;
    std::condition_variable_any ka_cv_;
    std::jthread ka_;

    std::optional<Clock::time_point> lost_since_;
    std::string last_error_;
    std::atomic<std::size_t> reconnects_{0};  // new associations after the first
    std::vector<std::string> notes_;
    bool shut_down_ = false;
};

}  // namespace rblk::bypass
