// One thread's queues reaped through one CQ per device; see poll_group.hpp.
#include "rblk/bypass/poll_group.hpp"

#include <fcntl.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>

namespace rblk::bypass {

namespace {

// A device CQ's first size: eight queues of 128 commands (400 entries
// each) without growing; it grows (ibv_resize_cq) past that.
constexpr int kGroupCqEntries = 4096;
// Completions per ibv_poll_cq(), as a queue's own (SPDK polls 128).
constexpr int kPollBatch = 128;
constexpr std::uint32_t kSlotMask = 0xffff;

}  // namespace

PollGroup::~PollGroup()
{
    for (auto& d : devices_)
        if (d->cq && d->unacked)
            ibv_ack_cq_events(d->cq.get(), d->unacked);
}

ibv_cq* PollGroup::join(Queue* q, ibv_context* verbs, int cqe, int max_cqe, std::uint32_t& key)
{
    auto it = std::find_if(devices_.begin(), devices_.end(), [&](const auto& d) { return d->verbs == verbs; });
    Device* d = it == devices_.end() ? nullptr : it->get();
    if (!d) {
        auto nd = std::make_unique<Device>();
        nd->verbs = verbs;
        nd->comp.reset(ibv_create_comp_channel(verbs));
        if (!nd->comp)
            throw Error(errno_message("cannot create a completion channel", errno));
        const int flags = ::fcntl(nd->comp->fd, F_GETFL);
        if (flags < 0 || ::fcntl(nd->comp->fd, F_SETFL, flags | O_NONBLOCK) < 0)
            throw Error(errno_message("cannot set up the completion channel", errno));
        nd->entries = std::min(std::max(kGroupCqEntries, cqe), max_cqe);
        nd->cq = create_owned_cq(verbs, nd->entries, this, nd->comp.get());
        if (!nd->cq)
            throw Error("cannot allocate the poll group's completion queue");
        devices_.push_back(std::move(nd));
        d = devices_.back().get();
    }
    if (d->used + cqe > d->entries) {
        // Every member's work requests must fit at once: a CQ that
        // overflows loses completions and, on most devices, the QPs.
        const int want = std::min(std::max(2 * d->entries, d->used + cqe), max_cqe);
        if (d->used + cqe > want || ibv_resize_cq(d->cq.get(), want) != 0)
            throw Error("the poll group's completion queue cannot hold another queue (" +
                        std::to_string(d->used) + " of " + std::to_string(d->entries) + " entries taken)");
        d->entries = want;
    }
    auto free = std::find_if(slots_.begin(), slots_.end(), [](const Member& m) { return !m.q; });
    if (free == slots_.end()) {
        if (slots_.size() >= kSlotMask)
            throw Error("the poll group has as many queues as it can tell apart");
        slots_.emplace_back();
        free = slots_.end() - 1;
    }
    // Room in the work lists for every member: an addition never allocates.
    to_post_.reserve(nr_members_ + 1);
    to_repost_.reserve(nr_members_ + 1);
    to_hand_out_.reserve(nr_members_ + 1);
    q->sink_ = &sink_;
    free->q = q;
    free->dev = d;
    d->used += cqe;
    ++nr_members_;
    pfds_valid_ = false;
    key = std::uint32_t{free->gen} << 16 | static_cast<std::uint32_t>(free - slots_.begin() + 1);
    free->key = key;
    return d->cq.get();
}

// Inlined in poll(), once per poll that reaped something.
[[gnu::always_inline]] inline void PollGroup::repost_all()
{
    for (Queue* q : to_repost_) {
        q->listed_repost_ = false;
        q->repost();
    }
    to_repost_.clear();
}

void PollGroup::post_all()
{
    for (Queue* q : to_post_) {
        q->listed_post_ = false;
        q->flush();
    }
    to_post_.clear();
}

void PollGroup::leave(std::uint32_t key, int cqe) noexcept
{
    const std::size_t i = (key & kSlotMask) - 1;
    if (i >= slots_.size() || slots_[i].key != key)
        return;
    Device& d = *slots_[i].dev;
    forget(slots_[i].q);
    slots_[i] = Member{nullptr, nullptr, 0, static_cast<std::uint16_t>(slots_[i].gen + 1)};
    --nr_members_;
    pfds_valid_ = false;
    // What the departed QP left (its flushed work requests) is dropped
    // as a stray; what the others' brought goes to their rings.
    const CompletionSink keep = sink_;
    sink_ = {};
    reap(d);
    after_reap();
    sink_ = keep;
    d.used -= cqe;
}

void PollGroup::reap(Device& d)
{
    ibv_wc wcs[kPollBatch];
    // No member comes or goes while the completions are handed over.
    Member* const slots = slots_.data();
    const std::size_t nslots = slots_.size();
    for (;;) {
        const int got = ibv_poll_cq(d.cq.get(), kPollBatch, wcs);
        ++cq_polls_;
        if (got < 0) [[unlikely]] {
            fail_device(d, "polling the completion queue failed");
            return;
        }
        for (int i = 0; i < got; ++i) {
            const auto key = static_cast<std::uint32_t>(wcs[i].wr_id >> 32);
            const std::size_t slot = (key & kSlotMask) - 1;
            if (slot >= nslots || slots[slot].key != key) [[unlikely]] {
                ++strays_;
                continue;
            }
            Queue* q = slots[slot].q;
            q->handle_wc(wcs[i]);
            if (q->repost_due() && !q->listed_repost_)
                to_repost(q);
        }
        // The CQ is empty, or the poll's array full: the rest is the next
        // poll's (their receives wait until then).
        if (got < kPollBatch || (sink_.end && sink_.next == sink_.end)) {
            d.quiet = d.armed && got < kPollBatch;
            return;
        }
    }
}

[[gnu::noinline]] void PollGroup::to_hand_out(Queue* q)
{
    q->listed_ready_ = true;
    to_hand_out_.push_back(q);
}

void PollGroup::forget(Queue* q)
{
    std::erase(to_post_, q);
    std::erase(to_repost_, q);
    std::erase(to_hand_out_, q);
}

std::size_t PollGroup::hand_out_kept(std::span<QueueCompletion> out)
{
    // Oldest first in each member; a member whose ring is not emptied
    // stays listed for the next poll.
    std::size_t n = 0;
    std::size_t kept = 0;
    for (Queue* q : to_hand_out_) {
        if (n < out.size())
            n += q->hand_out(out.subspan(n));
        if (q->ready_count_)
            to_hand_out_[kept++] = q;
        else
            q->listed_ready_ = false;
    }
    to_hand_out_.resize(kept);
    return n;
}

void PollGroup::reap_all()
{
    flush();
    for (auto& d : devices_)
        reap(*d);
    after_reap();
}

std::size_t PollGroup::poll(std::span<QueueCompletion> out)
{
    flush();
    // What members kept from earlier reaps first.
    std::size_t n = to_hand_out_.empty() ? 0 : hand_out_kept(out);
    if (n < out.size()) {
        sink_ = {out.data() + n, out.data() + out.size()};
        for (auto& d : devices_) {
            reap(*d);
            if (sink_.next == sink_.end)
                break;
        }
        n = static_cast<std::size_t>(sink_.next - out.data());
        sink_ = {};
        after_reap();
    }
    // Deadlines and CM events, ten times a second for the whole group.
    const auto now = CommandTable::Clock::now();
    if (now >= next_scan_) {
        next_scan_ = now + std::chrono::milliseconds(100);
        for (Member& m : slots_)
            if (m.q && !m.q->down())
                n = m.q->scan(now, out, n);
    }
    return n;
}

std::size_t PollGroup::wait(std::span<QueueCompletion> out, std::chrono::milliseconds timeout)
{
    CommandTable::Clock::time_point deadline{};
    // Quiet devices: the sleep comes first, as Queue::wait_cq() says.
    bool sleep_first = timeout.count() > 0 && quiet();
    for (;;) {
        // Never asleep on a command that has not left, or on one whose
        // post failed (its member kept it to hand out). Quiet devices are
        // armed.
        const bool skip = sleep_first && (flush(), to_hand_out_.empty());
        sleep_first = false;
        if (!skip) {
            std::size_t n = poll(out);
            if (n)
                return n;
            // Armed, then polled once more for what came before the
            // arming; an arming still in force needs neither (what came
            // since raised its event).
            bool armed_now = false;
            for (auto& d : devices_) {
                if (!d->armed) {
                    (void)arm(*d);  // a failure fails its members, which the poll hands out
                    armed_now = true;
                }
            }
            if (armed_now && (n = poll(out)) != 0)
                return n;
        }
        const int ms = next_sleep(deadline, timeout);
        if (ms < 0)
            return 0;
        // The devices' channels, then the live members' CM channels.
        if (!pfds_valid_) {
            pfds_.clear();
            pfd_queues_.clear();
            for (auto& d : devices_)
                pfds_.push_back({d->comp->fd, POLLIN, 0});
            for (Member& m : slots_) {
                if (m.q && !m.q->down()) {
                    pfds_.push_back({m.q->channel_->fd, POLLIN, 0});
                    pfd_queues_.push_back(m.q);
                }
            }
            pfds_valid_ = true;
        }
        // Waking now and then for the deadlines, and at once for a hang-up.
        const int r = ::poll(pfds_.data(), pfds_.size(), ms);
        if (r <= 0)
            continue;
        // r descriptors have something: the CM channels are looked at
        // only when the devices' do not account for all of them (a
        // completion wakes us, a hang-up seldom does).
        int others = r;
        for (std::size_t i = 0; i < devices_.size(); ++i) {
            if (!pfds_[i].revents)
                continue;
            --others;
            if (pfds_[i].revents & POLLIN)
                take_events(*devices_[i]);
        }
        for (std::size_t i = 0; others > 0 && i < pfd_queues_.size(); ++i) {
            if (pfds_[devices_.size() + i].revents) {
                --others;
                if (pfds_[devices_.size() + i].revents & POLLIN)
                    pfd_queues_[i]->check_cm();
            }
        }
    }
}

void PollGroup::sleep(Queue& q, int ms)
{
    const std::size_t i = (q.key_ & kSlotMask) - 1;
    if (i >= slots_.size() || slots_[i].q != &q)
        return;
    Device& d = *slots_[i].dev;
    if (!d.armed) {
        (void)arm(d);  // the caller polls again before it sleeps
        return;
    }
    pollfd p[2] = {{d.comp->fd, POLLIN, 0}, {q.channel_->fd, POLLIN, 0}};
    if (::poll(p, 2, ms) <= 0)
        return;
    if (p[1].revents & POLLIN)
        q.check_cm();
    if (p[0].revents & POLLIN)
        take_events(d);
}

bool PollGroup::arm(Device& d)
{
    if (ibv_req_notify_cq(d.cq.get(), 0) != 0) {
        fail_device(d, "arming the completion queue failed");
        return false;
    }
    d.armed = true;
    d.quiet = false;  // until a poll behind the arming finds the CQ dry
    return true;
}

void PollGroup::take_events(Device& d)
{
    // One event: an armed CQ raises one; a second one still there keeps
    // the channel readable for the next sleep (not a read that fails now).
    ibv_cq* cq = nullptr;
    void* ctx = nullptr;
    if (ibv_get_cq_event(d.comp.get(), &cq, &ctx) != 0)
        return;
    if (++d.unacked >= 64) {
        ibv_ack_cq_events(d.cq.get(), d.unacked);
        d.unacked = 0;
    }
    d.armed = false;  // an armed CQ raises one event, then needs arming again
    d.quiet = false;
    (void)arm(d);     // before the poll that finds what raised it, as a queue's wait
}

void PollGroup::fail_device(Device& d, const char* why)
{
    for (Member& m : slots_)
        if (m.q && m.dev == &d)
            m.q->fail(why);
}

}  // namespace rblk::bypass
