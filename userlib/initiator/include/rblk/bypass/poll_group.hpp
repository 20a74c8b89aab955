// A poll group: the I/O queues one thread drives, of any number of
// controllers, reaped through one completion queue per RDMA device (as
// SPDK's poll group): a poll is one ibv_poll_cq() per device however many
// queues there are, and a sleep one completion channel per device, where
// queues on their own poll and arm one CQ each.
//
// A queue joins when it connects (QueueConfig::group): its QP is created
// on the group's CQ of its device, and its work requests carry its member
// key (slot and generation, in wr_id's upper half), which is how a
// completion finds its queue. A queue leaves as it is destroyed: its QP
// goes first, then the group polls the CQ dry, handing the other members'
// completions to their queues and dropping the departed one's flushed work
// requests. Nothing of a departed queue stays behind in the CQ, so a QP
// number the device reuses can never be taken for it; the generation
// guards the slot against a provider that completed anything late.
//
// What a poll hands out comes from every member: each completion's
// user_data is the submitter's, and a caller that drives several queues
// through one group tells them apart by it. The members keep their own
// checks (every response, the send window, deadlines, the CM's hang-up):
// the group only carries the work completions to them. A member's own
// poll() and wait() (a Fabrics Connect's execute()) reap the group's CQs
// too, keeping what is the others' for the group's next poll.
//
// A poll's work follows what happened, not how many members there are:
// the group keeps lists of the members with commands to post, receives to
// re-post and completions kept in their rings, each member in a list at
// most once (a flag of its own says so).
//
// One thread owns the group and every member (no locks); the group
// outlives its members.
#pragma once

#include "rblk/bypass/queue.hpp"
#include "rblk/bypass/verbs.hpp"

#include <poll.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace rblk::bypass {

class PollGroup {
public:
    PollGroup() = default;
    PollGroup(const PollGroup&) = delete;
    PollGroup& operator=(const PollGroup&) = delete;
    // Every member must have left (been destroyed) before.
    ~PollGroup();

    // Posts what every member submitted, then hands out up to out.size()
    // completions: what members kept from earlier reaps first, then what
    // the devices' CQs hold. Checks the members' deadlines and CM events
    // ten times a second. Never blocks.
    std::size_t poll(std::span<QueueCompletion> out);
    // As poll(), but when nothing is ready sleeps on the devices'
    // completion channels and the members' CM channels, up to `timeout`.
    std::size_t wait(std::span<QueueCompletion> out, std::chrono::milliseconds timeout);
    // Posts what every member submitted since its last flush.
    void flush()
    {
        if (!to_post_.empty())
            post_all();
    }

    std::size_t members() const { return nr_members_; }
    std::size_t devices() const { return devices_.size(); }
    // ibv_poll_cq() calls since the group was made (for tests and the bench).
    std::uint64_t cq_polls() const { return cq_polls_; }
    // Completions that named no member (a departed queue's, late): dropped.
    std::uint64_t strays() const { return strays_; }

private:
    friend class Queue;

    // One device's shared CQ and completion channel. `entries` is what
    // the CQ holds, `used` what the members' queue pairs may have in it
    // at once (each member's send and receive depths).
    struct Device {
        ibv_context* verbs = nullptr;
        CompletionChannel comp;
        CompletionQueue cq;
        int entries = 0;
        int used = 0;
        bool armed = false;
        // Armed, and polled dry since: whatever completes now raises an
        // event, so a wait may sleep before it polls (wait()).
        bool quiet = false;
        unsigned unacked = 0;
    };
    // A member: its queue and its device; gen changes as members come
    // and go in the slot.
    struct Member {
        Queue* q = nullptr;
        Device* dev = nullptr;
        std::uint32_t key = 0;  // the member's, 0 while free: one compare names it
        std::uint16_t gen = 0;
    };
    // Queue's side (queue.cpp): the CQ for a queue of `cqe` entries on
    // `verbs` (whose CQs hold `max_cqe` at most: the queue queried the
    // device), made or grown as needed, and the member key the queue puts
    // in its wr_ids. Throws Error.
    ibv_cq* join(Queue* q, ibv_context* verbs, int cqe, int max_cqe, std::uint32_t& key);
    // After the member's QP is destroyed: drains its device's CQ and frees
    // the slot. Never throws.
    void leave(std::uint32_t key, int cqe) noexcept;
    // The CQ's entries to their members (into sink_ while a poll has
    // room, else their ready rings); false when polling failed (the
    // device's members then fail).
    void reap(Device& d);
    // A member's poll: every device's CQ into the members' rings.
    void reap_all();
    // A member's sleep (Queue::wait_cq()): on its device's channel and its
    // own CM channel, up to `ms`; arms the CQ first.
    void sleep(Queue& q, int ms);
    // Arms a device's CQ (false: arming failed, its members failed).
    bool arm(Device& d);
    // Every device quiet and nothing kept in the members' rings: a
    // completion since the last poll would have raised an event.
    bool quiet() const
    {
        if (!to_hand_out_.empty() || devices_.empty())
            return false;
        for (const auto& d : devices_)
            if (!d->quiet)
                return false;
        return true;
    }
    // Takes a device's completion events and arms it again.
    void take_events(Device& d);
    // The members' receive chains posted after a reap (reposts_).
    void after_reap()
    {
        if (!to_repost_.empty())
            repost_all();
    }
    void repost_all();
    // flush()'s work: every member in to_post_ posts its chain.
    void post_all();
    // What members kept in their rings (to_hand_out_) into `out`.
    std::size_t hand_out_kept(std::span<QueueCompletion> out);
    void fail_device(Device& d, const char* why);
    // Queue's side: a member has its first command to post since the
    // last flush, its first receive to re-post since the last reap, its
    // first completion in its ring; it failed (its CM channel leaves
    // wait()'s set).
    void to_post(Queue* q);
    void to_repost(Queue* q);
    void to_hand_out(Queue* q);
    void member_failed() { pfds_valid_ = false; }
    // Removes a departing member from the lists.
    void forget(Queue* q);

    std::vector<std::unique_ptr<Device>> devices_;
    // Slot i is member key (gen << 16 | (i + 1)); a free slot has q null
    // and key 0.
    std::vector<Member> slots_;
    std::size_t nr_members_ = 0;
    // Where a poll puts completions, shared by the members' finish():
    // {null, null} outside a poll with room.
    CompletionSink sink_;
    std::uint64_t cq_polls_ = 0;
    std::uint64_t strays_ = 0;
    CommandTable::Clock::time_point next_scan_{};
    // The work lists (see above); their capacity is every member's, so
    // that an addition never allocates.
    std::vector<Queue*> to_post_;
    std::vector<Queue*> to_repost_;
    std::vector<Queue*> to_hand_out_;
    // wait()'s descriptors (the devices', then the live members' CM
    // channels) and the member of each CM channel: made again only when
    // members come, go or fail.
    std::vector<pollfd> pfds_;
    std::vector<Queue*> pfd_queues_;
    bool pfds_valid_ = false;
};

// Inline: once per command (to_post) or per reap. to_hand_out() is not,
// off Queue::finish()'s fast path (its registers).
inline void PollGroup::to_post(Queue* q)
{
    q->listed_post_ = true;
    to_post_.push_back(q);
}

inline void PollGroup::to_repost(Queue* q)
{
    q->listed_repost_ = true;
    to_repost_.push_back(q);
}

}  // namespace rblk::bypass
