// One NVMe-oF queue over one RDMA RC queue pair: the admin queue (qid 0)
// or an I/O queue. It connects through rdma_cm with the NVMe-oF private
// data, posts a receive for every response it may get, sends commands
// (each SEND carries the 64-byte command and, for small writes, the data
// in the same capsule as its second buffer; larger data goes by keyed SGL
// over registered memory) and reaps completions, by busy polling or by
// sleeping on the completion channel (and on the CM channel, for the
// target's hang-up). The 64-byte commands sit densely in one array, as
// SPDK's do: a command costs one cache line, and a page holds 64 of them.
// SENDs go unsignaled but one in sig_every (SendWindow): a command ends
// on its response alone, unless its SEND reads the caller's memory, which
// the caller may free once the command ends (then the SEND is signaled
// and the command ends on both, as nvme-rdma's with inline data). The
// commands submitted between two reaps are posted as one chain (flush()),
// and so are the receives reaps consumed (recv_batch at least). Every
// response is checked (CommandTable) before it completes anything; a bad
// one, a failed work request, the target's hang-up or a command past its
// timeout fails the queue: its QP goes to the error state (so the target
// can no longer touch host memory through it) and every command in flight
// completes with QueueDown, or Timeout for the one that expired.
// A queue may share its CQ with the other queues of its thread through a
// poll group (poll_group.hpp), which then reaps for it.
// Not thread safe: one thread drives a queue (or threads serialized by a
// lock of the caller's, as the admin queue's); failed() and failure() may
// be read by any thread.
#pragma once

#include "rblk/bypass/command_table.hpp"
#include "rblk/bypass/memory.hpp"
#include "rblk/bypass/send_window.hpp"
#include "rblk/bypass/status.hpp"
#include "rblk/bypass/verbs.hpp"
#include "rblk/bypass/wire.hpp"

#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace rblk::bypass {

class PollGroup;

// An I/O queue's QueueConfig::recv_batch (Controller): a QD1 queue rings
// the provider's receive doorbell once per 16 responses, not per response.
inline constexpr std::uint16_t kIoRecvBatch = 16;

struct QueueConfig {
    std::uint16_t qid = 0;
    std::uint16_t size = kAdminQueueSize;    // commands in flight at most (the SQ size)
    std::uint32_t inline_max = 0;            // in-capsule data bytes per command (0: none)
    // Receives re-posted per ibv_post_recv() at least (1..): a reap leaves
    // the ones it consumed chained until there are this many, and the QP
    // holds recv_batch - 1 receives beyond `size`, so that every command
    // in flight still finds one. 1: each reap re-posts what it consumed.
    std::uint16_t recv_batch = 1;
    std::chrono::milliseconds cmd_timeout{30000};
    std::chrono::milliseconds cm_timeout{3000};  // address and route resolution, each
    std::chrono::milliseconds connect_timeout{15000};  // the RDMA connection's establishment
    int tos = -1;                            // RDMA type of service, -1: the default
    // The poll group whose CQ the queue shares (its owner thread drives
    // the queue); nullptr: a CQ of its own.
    PollGroup* group = nullptr;
    // The controller's association number, bumped as the association
    // fails (its keep-alive, or another queue's thread asked), and the one
    // this queue was connected under: the queue fails at its next deadline
    // scan (ten a second) once they differ, as one whose own command timed
    // out. nullptr: none (the admin queue's failure is its own).
    const std::atomic<std::uint32_t>* ctrl_epoch = nullptr;
    std::uint32_t epoch = 0;
};

// The data a write carries in its capsule, after the command.
struct CapsuleData {
    std::span<const std::byte> bytes;
    // The bytes' local key on the queue's PD; 0: not registered, the
    // queue copies them into a buffer of its own.
    std::uint32_t lkey = 0;
    // Registered memory that outlives the queue's connection (an I/O
    // queue's pool): the command may end before its SEND completes.
    bool stable = false;
};

// A finished command: what the submitter passed, the outcome, dword 0/1.
struct QueueCompletion {
    std::uint64_t user_data = 0;
    IoStatus status;
    std::uint64_t result = 0;
};

// A wait's next sleep: the first call starts `deadline` at now + timeout;
// then the milliseconds to sleep, at most 200 (a sleeper wakes for the
// command deadlines' scan), or -1 once the deadline has passed. The
// coarse clock, as the deadlines': a sleep's bound needs no better.
inline int next_sleep(CommandTable::Clock::time_point& deadline, std::chrono::milliseconds timeout)
{
    const auto now = CommandTable::Clock::now();
    if (deadline == CommandTable::Clock::time_point{})
        deadline = now + timeout;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    if (left.count() <= 0)
        return -1;
    return static_cast<int>(std::min<std::int64_t>(left.count(), 200));
}

// While a poll reaps: where the next finished command goes in its array,
// and the array's end ({null, null} otherwise: finished commands then wait
// in their queue's ready ring). A queue's own, or its poll group's, which
// every member fills.
struct CompletionSink {
    QueueCompletion* next = nullptr;
    QueueCompletion* end = nullptr;
};

class Queue {
public:
    // Resolves the address and route of `dst` (from `src` if given) on an
    // event channel of its own. Throws Error.
    Queue(const QueueConfig& cfg, const sockaddr* dst, const sockaddr* src);
    Queue(const Queue&) = delete;
    Queue& operator=(const Queue&) = delete;
    ~Queue();

    // The device the route resolved to (for the controller's PD).
    ibv_context* verbs() const { return id_->verbs; }
    // Creates the CQ and QP on `pd` and connects (NVMe-oF private data);
    // throws Error with the module's wording for each failure.
    void connect(ibv_pd* pd);
    // Disconnects the RDMA connection (the command side is done before).
    // Best effort, never throws: what could go wrong (the CM channel
    // unreadable) only hides the target's DISCONNECTED, and destroying the
    // QP and cm_id ends the connection either way.
    void disconnect() noexcept;

    const QueueConfig& config() const { return cfg_; }
    std::uint16_t depth() const { return table_.depth(); }
    std::uint16_t in_flight() const { return table_.in_flight(); }
    // Any thread: the ublk server's main thread asks while a queue thread
    // may be failing the queue. failure() is the reason once failed() is
    // true, "" before.
    bool failed() const { return failed_.load(std::memory_order_acquire); }
    std::string failure() const { return failed() ? failure_ : std::string(); }
    // The target disconnected the queue (the RDMA CM's DISCONNECTED).
    bool peer_closed() const { return peer_closed_; }

    // Queues `cmd` (its cid is set here) for the next flush(); `data`, if
    // not empty, goes in the capsule after it and the SGL is set to say
    // so, else the caller's SGL stays. Registered data must stay as it is
    // until the command completes. Busy when the queue is full (every tag
    // in flight, or the send queue waiting for the provider: poll, then
    // submit again), QueueDown once failed.
    IoStatus submit(const Command& cmd, const CapsuleData& data, std::uint64_t user_data);
    // Posts the commands submitted since the last flush as one chain: one
    // ibv_post_send(), one doorbell (as the module's blk-mq batches and
    // SPDK's delayed submission). poll(), wait() and arm_events() flush
    // first, so a caller that submits a batch and then reaps never leaves
    // a command behind; a caller that sleeps on something else flushes.
    // A failed post fails the queue (its commands end with QueueDown).
    void flush()
    {
        if (pend_count_)  // inline: fio commits twice per I/O, once with nothing
            post_sends();
    }
    // ibv_post_send() calls for commands since the queue was made.
    std::uint64_t doorbells() const { return doorbells_; }

    // Reaps what has completed (up to out.size()), checks timeouts; the
    // number of entries filled. Never blocks.
    std::size_t poll(std::span<QueueCompletion> out)
    {
        return from_ring(out) ? hand_out_and_flush(out) : poll_cq(out);
    }
    // As poll(), but when nothing is ready sleeps on the completion channel
    // (up to `timeout`, and no longer than the next command deadline).
    std::size_t wait(std::span<QueueCompletion> out, std::chrono::milliseconds timeout)
    {
        return from_ring(out) ? hand_out_and_flush(out) : wait_cq(out, timeout);
    }

    // For a caller's own event loop (the ublk server's io_uring): the
    // completion channel's descriptor (non-blocking; -1 before connect,
    // and for a queue in a poll group, whose group sleeps for it),
    // arm_events() before sleeping on it (false: completions may be
    // waiting already or the queue failed: poll() first), take_events()
    // once it polled readable (it arms the CQ again). An arming is in
    // force (events_armed()) until its event is taken: a caller that
    // finds it so before arm_events() need not poll behind it, since
    // whatever completed since has raised the event.
    int event_fd() const;
    bool arm_events();
    bool events_armed() const { return armed_; }
    void take_events();
    // Completions reaped and not yet handed out (a full send window's
    // reap inside submit() leaves them): they raise no event, poll().
    bool has_ready() const { return ready_count_ > 0; }

    // Fails the queue: QP to error, every command in flight completed with
    // QueueDown at the next poll(). `why` is kept for failure().
    void fail(const std::string& why);

    // Runs one command to completion (admin and setup): submit, then
    // poll/wait until its completion. QueueDown when the queue failed.
    QueueCompletion execute(const Command& cmd, std::chrono::milliseconds timeout);

private:
    friend class PollGroup;

    struct Slot {
        std::uint64_t user_data = 0;
        std::uint16_t status = 0;
        std::uint64_t result = 0;
        IoStatus::Kind forced = IoStatus::Kind::Ok;  // QueueDown/Timeout once failed
        bool ready = false;                          // in ready_ (not yet handed out)
    };
    // The ring: `size` commands, `size` responses, then a buffer of
    // inline_max bytes per tag for in-capsule data that is not registered.
    Command* command(std::uint16_t tag) const { return reinterpret_cast<Command*>(ring_.get()) + tag; }
    Completion* response(std::uint32_t idx) const;
    std::byte* bounce(std::uint16_t tag) const;
    // Posts the pending SENDs as one chain (flush()).
    void post_sends();
    // Chains receive `idx` (its response read) for post_recvs().
    void queue_recv(std::uint32_t idx);
    // Posts the chained receives in one call: 0 or an errno.
    int post_recvs();
    void handle_wc(const ibv_wc& wc);
    // handle_wc()'s SEND completions (retiring the send window) and its
    // failures, out of its way.
    void send_done(std::uint64_t seq);
    void bad_wc(const ibv_wc& wc);
    void bad_cqe(CqeVerdict v, std::uint16_t cid);
    // Handles the work completions waiting (until `enough` commands have
    // finished); a failed CQ poll fails the queue. A member of a poll
    // group has its group reap every member.
    void reap(std::size_t enough);
    // The receives a reap consumed back to the QP (none for a failed queue).
    // Inline: once per reap, the queue's and its group's.
    void repost()
    {
        // Before the caller has a tag back (released as its command ends,
        // but reused only once poll() returns): a new command's response
        // must find its receive posted.
        if (down()) {
            recv_head_ = recv_tail_ = nullptr;  // a failed QP takes no more
            recv_chained_ = 0;
        } else if (repost_due()) {  // not a call per response
            if (const int err = post_recvs())
                repost_failed(err);
        }
    }
    // Receives the QP holds when none waits in the chain: one per command
    // that may be in flight (`size`), and recv_batch - 1 more, which a
    // reap may leave in the chain (repost_due()).
    std::uint32_t nr_recvs() const { return std::uint32_t{cfg_.size} + cfg_.recv_batch - 1; }
    // Enough receives are chained to post them: below recv_batch the QP
    // still holds one for each of the `size` commands that may be in flight.
    bool repost_due() const { return recv_chained_ >= cfg_.recv_batch; }
    void repost_failed(int err);
    // Tag `tag`'s command has ended: into poll()'s array while it has room
    // (sink_), else into the ready ring, for the next poll().
    void finish(std::uint16_t tag);
    // Fills `c` with the command's outcome and frees its tag.
    void deliver(std::uint16_t tag, QueueCompletion& c);
    // The ready ring's oldest entries into `out`.
    std::size_t hand_out(std::span<QueueCompletion> out);
    // Whether the ready ring alone fills `out`: then poll() and wait() are
    // a call to hand_out_and_flush(), with no CQ poll and no clock read
    // (fio takes one completion per call, a reap finds several). The
    // deadlines and the CM events wait for the next poll that reaps: the
    // ring only drains until then, so that is at most `size` polls away.
    bool from_ring(std::span<QueueCompletion> out) const { return !out.empty() && ready_count_ >= out.size(); }
    std::size_t hand_out_and_flush(std::span<QueueCompletion> out)
    {
        flush();  // poll()'s promise: what was submitted leaves
        return hand_out(out);
    }
    // poll() and wait() when the ring does not fill `out`.
    std::size_t poll_cq(std::span<QueueCompletion> out);
    // poll_cq()'s deadline scan and CM check, ten times a second: `n`
    // entries of `out` filled, the count after what a failure ended.
    std::size_t scan(CommandTable::Clock::time_point now, std::span<QueueCompletion> out, std::size_t n);
    std::size_t wait_cq(std::span<QueueCompletion> out, std::chrono::milliseconds timeout);
    // wait_cq() of a poll group's member: the group sleeps for it.
    std::size_t wait_grouped(std::span<QueueCompletion> out, std::chrono::milliseconds timeout);
    // Reads the queue's CM events: the target's DISCONNECTED (or the
    // device's removal) fails the queue at once, as nvme-rdma's CM handler
    // starts error recovery, rather than at a command's timeout or the
    // keep-alive's. poll() looks every 100 ms, wait() as it sleeps.
    void check_cm();
    // Arms the CQ's completion event (a failure fails the queue: false).
    bool arm();
    // Takes one event from the completion channel, if there is one.
    bool take_event();
    // The driving thread's own reads of failed_: it is the one that wrote it.
    bool down() const { return failed_.load(std::memory_order_relaxed); }

    QueueConfig cfg_;
    EventChannel channel_;
    CmId id_;
    CompletionChannel comp_;
    CompletionQueue cq_;  // a queue's own CQ; none in a poll group
    ibv_cq* cqp_ = nullptr;  // the CQ the queue pair uses: cq_'s or the group's
    PollGroup* group_ = nullptr;
    // In a poll group: the member key the group gave (its wr_ids' upper
    // half, key_bits_), and the CQ entries it reserved there. 0 alone.
    std::uint64_t key_bits_ = 0;
    std::uint32_t key_ = 0;
    int group_cqe_ = 0;
    AlignedBytes ring_;  // commands, responses, then the bounce buffers
    MemoryRegion ring_mr_;
    QueuePairHandle qp_;  // last: destroyed first, before the memory and CQ it uses
    CommandTable table_;
    std::vector<Slot> slots_;
    // The SENDs submitted and not yet posted, chained in order
    // (pend_wr_[i].next is &pend_wr_[i + 1]); `size` entries, two SGEs
    // each (pend_sge_[2 * i], the command, and its data). A WR's sg_list
    // and opcode are set once, at construction; submit() writes the rest.
    std::vector<ibv_send_wr> pend_wr_;
    std::vector<ibv_sge> pend_sge_;
    // The tag of each signaled SEND that reads the caller's memory, by its
    // window sequence number modulo the window's depth (no two WRs in the
    // window share a slot); kNoTag for the others.
    std::vector<std::uint16_t> data_send_tag_;
    std::size_t pend_count_ = 0;
    std::uint64_t doorbells_ = 0;
    // One receive work request per response buffer (nr_recvs()), built at
    // connect; those a reap consumed are chained (recv_head_ .. recv_tail_,
    // through their next) and posted together at the end of the reap that
    // finds recv_batch of them. No receive is in the chain and the QP at
    // once, so nr_recvs() requests always do.
    std::vector<ibv_recv_wr> recv_wr_;
    std::vector<ibv_sge> recv_sge_;
    ibv_recv_wr* recv_head_ = nullptr;
    ibv_recv_wr* recv_tail_ = nullptr;
    std::uint32_t recv_chained_ = 0;  // receives in the chain
    SendWindow window_;
    // When submit() first found the send window full with no SEND retired
    // since; {} after each retirement.
    CommandTable::Clock::time_point window_full_since_{};
    // Tags finished, to hand out, oldest first: a ring of `size` entries
    // (a tag is in it at most once).
    std::vector<std::uint16_t> ready_;
    std::size_t ready_head_ = 0;
    std::size_t ready_count_ = 0;
    // Where finish() puts a command (CompletionSink): poll()'s array while
    // it reaps, empty otherwise (submit()'s reap of a full send window and
    // fail() from the deadline scan use the ring); sink_ points at it, or
    // at the poll group's, which the group's poll sets.
    CompletionSink own_sink_;
    CompletionSink* sink_ = &own_sink_;
    std::size_t finished_ = 0;  // commands finished in this reap
    unsigned unacked_events_ = 0;
    // The CQ is armed and its event not yet taken: a completion since the
    // arming has raised it, or will.
    bool armed_ = false;
    // Armed, and polled dry since: whatever completes now raises the
    // event, so wait() may sleep before it polls. Not in a poll group
    // (the group keeps its own).
    bool quiet_ = false;
    // In a poll group: in its lists of members with commands to post,
    // receives to re-post, completions in the ring (PollGroup).
    bool listed_post_ = false;
    bool listed_repost_ = false;
    bool listed_ready_ = false;
    bool connected_ = false;
    bool peer_closed_ = false;
    // Set once, by fail() on the driving thread: failure_ first, then
    // failed_ with release, paired with the acquire in failed(), so that a
    // thread that sees failed_ reads the whole failure_ (never written again).
    std::string failure_;
    std::atomic<bool> failed_{false};
    std::uint64_t next_exec_ = 1ull << 62;  // user_data of execute()'s commands
    CommandTable::Clock::time_point next_expiry_scan_{};
};

}  // namespace rblk::bypass
