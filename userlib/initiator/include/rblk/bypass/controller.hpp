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
// controller ID), each an IoQueue for one application thread.
//
// Keep-alive: a thread of the controller's sends Keep Alive on the admin
// queue every KATO/2 (the admin queue is only touched under admin_mu_, by
// that thread and by the setup and shutdown paths). A keep-alive that fails
// marks the controller failed, as a failed I/O queue does.
//
// Recovery (ctrl_loss_tmo / fast_io_fail_tmo, as the module and nvme-cli
// mean them): a failed queue makes every command on it complete with
// QueueDown/Timeout; recover() then tears the association down and
// reconnects every reconnect_delay seconds. It gives up for good (throws)
// once ctrl_loss_tmo has passed since the failure (-1: never), and returns
// false (the controller still failed) once fast_io_fail_tmo has, so that
// the I/O waiting on it fails instead of waiting for the reconnect. The
// caller calls recover() with no I/O thread inside its IoQueue (SyncIo
// does).
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

    // A queue, or the keep-alive, failed: recover() is due.
    bool failed() const;
    std::string failure() const;
    // See the header comment. Returns true when live again.
    bool recover();
    std::size_t reconnects() const { return reconnects_; }
    // What the first connect left out and why (namespaces skipped), for the caller's log.
    const std::vector<std::string>& notes() const { return notes_; }

    // The clean shutdown of the destructor, with errors reported (throws).
    void shutdown();

private:
    // connect_all()'s steps, with admin_mu_ held (controller.cpp).
    void connect_all(bool first);
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
    std::chrono::milliseconds admin_timeout_;
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
    mutable std::mutex admin_mu_;

    std::uint16_t cntlid_ = 0xffff;
    std::uint64_t cap_ = 0;
    std::uint32_t vs_ = 0;
    std::uint32_t cc_ = 0;
    ControllerInfo info_;
    std::vector<NamespaceInfo> ns_;  // never empty once connected
    std::uint16_t io_size_ = 0;

    std::atomic<bool> ka_failed_{false};
    std::mutex ka_mu_;
    std::condition_variable_any ka_cv_;
    std::jthread ka_;

    std::optional<Clock::time_point> lost_since_;
    std::string last_error_;
    std::size_t reconnects_ = 0;
    std::vector<std::string> notes_;
    bool shut_down_ = false;
};

}  // namespace rblk::bypass
