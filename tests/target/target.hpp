// The test target: an rdma_cm listener, its queues, the controllers they
// form (I/O controllers of one subsystem, or discovery controllers), one
// RAM namespace, and the misbehaviour it was asked to play.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "disclog.hpp"
#include "misbehave.hpp"
#include "queue.hpp"
#include "reservation.hpp"

namespace rt {

struct Options {
    // One port (an rdma_cm listener) per address, all on @port.
    std::vector<std::string> addrs{"0.0.0.0"};
    uint16_t port = 4420;
    // While this file lists a port's address (one per line), that port is
    // removed as nvmet removes one: its listener closed, every queue that
    // came through it disconnected. It is back once its line is gone.
    std::string ports_down_file;
    std::string subnqn = "nqn.2024-01.io.rblk:badtarget";
    uint32_t size_mib = 16;
    uint64_t trap_offset = 8 << 20;  // byte offset of the trap block
    Mode mode = Mode::none;
    uint64_t after = 0;
    uint64_t count = 0;
    uint16_t max_queue_size = 128;  // CAP.MQES + 1 and MAXCMD
    // In-capsule data an I/O command may carry (IOCCSZ), the size of each
    // receive buffer beyond the command: a host that sends more fails the
    // receive, and the queue with it.
    uint32_t inline_bytes = 8192;
    uint32_t reply_delay_ms = 0;     // hold each I/O response this long
    std::string trigger_file;        // stale-key-write: write once this exists
    uint32_t namespaces = 1;         // nsid 2 on: each the first half of nsid 1's memory
    bool formats = false;            // two LBA formats (512 B, 4 KiB); Format NVM picks one
    // Namespace 1's NGUID and UUID as given (nvmet's device_nguid and
    // device_uuid), and no EUI-64, as nvmet has none: then the namespace
    // is one nvmet also serves, as another path. Unset: from the NQN.
    std::optional<std::array<uint8_t, 16>> nguid, uuid;
    // A discovery controller answers to the well-known NQN and this one.
    std::string disc_nqn;
    // Records of the discovery log after the subsystem's own.
    std::vector<disc::Entry> disc_entries;
    // Namespace 1 takes reservations (ONCS bit 5, RESCAP), and AERs are
    // held for their notices.
    bool reservations = false;
    // Where the reservation state is kept while PTPL is 1 (Persist
    // Through Power Loss: a restart of the target is the power loss);
    // without it PTPL is not supported.
    std::string resv_state;
    // Namespace change notices: once this file appears, each controller
    // gets a Namespace Attribute Changed event, and its Changed Namespace
    // List (log page 04h) the nsids the file lists.
    std::string ns_notice_file;
};

// Per association: the controller registers and what its Connect made it.
struct Controller {
    uint32_t cc = 0;
    uint32_t csts = 0;
    std::string subnqn;      // as in its Connect
    bool discovery = false;  // a discovery controller: admin queue only
    uint32_t aec = 0;        // discovery: Asynchronous Event Configuration
    uint32_t kato = 0;       // discovery: Keep Alive Timer, as set
    uint32_t aers = 0;       // AERs held (discovery: none is ever answered)
    // --reservations: the Host ID from Connect (the registrant it is),
    // its notices, and the AERs it has outstanding (slots of admin_q).
    resv::HostId hostid{};
    resv::NoticeLog notices;
    Queue* admin_q = nullptr;  // from its Connect; cleared when dropped: the controller is gone
    std::deque<uint32_t> aer_slots;
    // --ns-notice-file: the event owed, and the list log page 04h serves
    // (then empties).
    bool ns_notice_due = false;
    std::vector<uint32_t> changed_ns;
};

// Destroys dropped queues on a thread of its own, as nvmet-rdma releases
// its queues from a work item: rdma_destroy_id() waits for the CM to let
// go of the id, and on 6.12 with rxe a disconnect's lost MAD holds it
// for a minute (cm_destroy_id_wait_timeout). Done inline, that stalls
// the whole target, and every host's connect times out meanwhile.
class QueueReaper {
public:
    QueueReaper();
    ~QueueReaper();  // destroys what is still queued, then joins
    QueueReaper(const QueueReaper&) = delete;
    QueueReaper& operator=(const QueueReaper&) = delete;
    void reap(std::unique_ptr<Queue> q);

private:
    void run(std::stop_token st);
    std::mutex lock_;
    std::condition_variable_any wake_;
    std::deque<std::unique_ptr<Queue>> dead_;  // guarded by lock_
    std::jthread thread_;                       // last: starts after the rest
};

class Target {
public:
    static constexpr uint32_t kBlockShift = 9;
    // Receive buffers one queue may ask for in its CM request; Connect
    // then holds an I/O queue to --max-queue-size, as nvmet does.
    static constexpr uint16_t kMaxRdmaQueueSize = 1024;
    static constexpr uint32_t kMaxInlineBytes = 16384;  // --inline-bytes at most
    static constexpr uint32_t kMaxIoQueues = 4;

    explicit Target(const Options& opts);
    // Serves until @stop becomes true.
    void run(const volatile bool& stop);
    // After run(): logs the in-flight invariant per queue id and the
    // overflow count, closes the listeners, logs "stopped", detaches from
    // its output and tears the queues down.
    void stop();

private:
    // target.cpp: connections
    void on_cm_event(rdma_cm_event& ev);
    void on_connect_request(rdma_cm_id* id, const void* priv, uint8_t priv_len, uint8_t rd_depth);
    Device& device(ibv_context* ctx);
    void drop_queue(rdma_cm_id* id);
    void note_inflight(const Queue& q);
    void on_command(Queue& q, uint32_t slot);

    // fabrics.cpp: Connect and properties
    void fabrics(Queue& q, uint32_t slot);
    void connect(Queue& q, uint32_t slot);
    void connect_done(Queue& q, uint32_t slot, bool ok);

    // admin.cpp
    void admin(Queue& q, uint32_t slot);
    void identify(Queue& q, uint32_t slot);
    void identify_ctrl(Queue& q, uint8_t* buf);
    void identify_ns(uint32_t nsid, uint8_t* buf);
    // Bytes of namespace @nsid (0: inactive); nsid 2 aliases nsid 1's start.
    uint64_t ns_bytes(uint32_t nsid) const;
    // --formats: Format NVM switches every namespace to LBA format 0
    // (512 B) or 1 (4 KiB); the data stays where it is, in bytes.
    void format_nvm(Queue& q, uint32_t slot);
    uint32_t block_shift() const { return lbaf_ ? 12 : kBlockShift; }
    uint8_t lbaf_ = 0;
    // NN 0xfffffffe and every active-list page full (absurd-nn and
    // nsid-list-no-data: a read past the first page is a continuation).
    bool endless_ns_list() const { return bad_.is(Mode::absurd_nn) || bad_.is(Mode::nsid_list_no_data); }

    // discovery.cpp: the discovery controller
    bool is_discovery_nqn(const std::string& nqn) const;
    void disc_admin(Queue& q, uint32_t slot);
    void disc_features(Queue& q, uint32_t slot);
    void disc_get_log_page(Queue& q, uint32_t slot);
    disc::Log disc_log(const Queue& q, bool misbehave);
    uint64_t disc_genctr_ = 1;  // disc-genctr-churn counts it up

    // aen.cpp
    void async_event(Queue& q, uint32_t slot);
    void get_log_page(Queue& q, uint32_t slot);
    // Answers held AERs with the namespace and reservation events @ctrl owes.
    void post_events(Controller& ctrl);
    bool ns_notices() const { return !opts_.ns_notice_file.empty(); }
    // --ns-notice-file: takes the file if it is there, and owes each
    // controller the notice.
    void ns_notice_poll();
    void ns_changed_log(const Queue& q, uint8_t* buf, uint32_t len);
    uint64_t aens_ = 0;  // events sent (aen-storm)

    // resv.cpp: reservations on namespace 1 (--reservations)
    void resv_init();  // the engine, and the state --resv-state kept
    static bool is_resv_opcode(uint8_t opcode);
    void resv_command(Queue& q, uint32_t slot);
    void resv_execute(Queue& q, uint32_t slot, bool ok);
    void resv_report(Queue& q, uint32_t slot);
    void resv_deliver(const resv::Outcome& out);
    void resv_persist();
    bool resv_features(Queue& q, uint32_t slot);  // 81h-83h; false: not one of them
    void resv_log_page(Queue& q, uint32_t slot);
    std::optional<resv::Engine> resv_;

    // io.cpp
    void io(Queue& q, uint32_t slot);
    void io_done(Queue& q, uint32_t slot, Action act, uint16_t status);
    // --reply-delay-ms: responses held back, oldest first, so commands
    // pile up in flight as on a slow device (the in-flight invariant is
    // moot while every command is answered before the next arrives).
    struct Held {
        Queue* q;
        uint32_t slot;
        uint16_t status;
        std::chrono::steady_clock::time_point due;
    };
    std::deque<Held> held_;
    int release_held();  // answers what is due; ms to the next one, or -1

    // stale-key-write: the first held read's controller and keyed SGL,
    // and the RDMA WRITE with its key once --trigger-file exists.
    struct StaleKey {
        uint16_t cntlid;
        uint16_t qid;
        DataPtr dp;
    };
    std::optional<StaleKey> stale_;
    bool stale_fired_ = false;
    std::vector<uint8_t> stale_src_;
    void stale_hold(Queue& q, uint32_t slot);
    void stale_fire();

    void reply(Queue& q, uint32_t slot, uint16_t status, uint64_t result = 0);
    static void log(const std::string& line);

    Options opts_;
    Misbehaviour bad_;
    std::vector<uint8_t> ns_;  // namespace 1
    std::map<uint16_t, Controller> ctrls_;
    uint16_t next_cntlid_ = 1;
    uint64_t connections_ = 0;
    // Per qid, over every queue of that id so far: highest in-flight count
    // and the SQSIZE of the last one; overflows over all of them.
    std::map<uint16_t, std::pair<uint32_t, uint16_t>> max_inflight_;
    uint64_t overflows_ = 0;
    uint64_t in_capsule_ = 0;  // commands whose data came in the capsule

    // A port and its listener, null while the port is removed.
    struct Port {
        std::string addr;
        CmId listener;
    };
    void port_listen(Port& p);
    void port_remove(size_t i);
    void ports_apply();
    std::chrono::steady_clock::time_point ports_checked_{};

    // Tear-down runs bottom up: queues, devices, listeners, channel.
    EventChannel channel_;
    std::vector<Port> ports_;
    std::map<ibv_context*, std::unique_ptr<Device>> devices_;
    std::map<rdma_cm_id*, std::unique_ptr<Queue>> queues_;
    std::map<rdma_cm_id*, size_t> port_of_;  // the index in ports_ a queue came through
    // Joined before devices_ go: the queues it holds use their PDs.
    QueueReaper reaper_;
    // Queues whose Connect is answered by a disconnect (by the cm_id).
    std::map<rdma_cm_id*, bool> hang_up_;
    Mr stale_mr_;  // stale_src_'s, in the PD of the queue that wrote it
};

}  // namespace rt
