// A Queue's host-side logic against fake_rdma (no RDMA device): its
// teardown when the CM channel fails, and its failure as another thread
// reads it.
#include "fake_rdma.hpp"

#include <rblk/bypass/capsule.hpp>
#include <rblk/bypass/io_queue.hpp>
#include <rblk/bypass/memory.hpp>
#include <rblk/bypass/poll_group.hpp>
#include <rblk/bypass/queue.hpp>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace rblk::bypass {
namespace {

// A queue to 127.0.0.1:4420 on a fresh fake (or, without `reset`, beside
// what the fake has recorded), its address and route resolved.
std::unique_ptr<Queue> resolved_queue(const QueueConfig& cfg, bool reset = true)
{
    if (reset)
        fake_rdma::reset();
    sockaddr_in dst{};
    dst.sin_family = AF_INET;
    dst.sin_port = htons(4420);
    dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return std::make_unique<Queue>(cfg, reinterpret_cast<const sockaddr*>(&dst), nullptr);
}

std::unique_ptr<Queue> connected_queue(std::uint32_t inline_max = 0,
                                       std::chrono::milliseconds cmd_timeout = std::chrono::seconds(30))
{
    QueueConfig cfg;
    cfg.qid = 1;
    cfg.size = 4;
    cfg.inline_max = inline_max;
    cfg.cmd_timeout = cmd_timeout;
    auto q = resolved_queue(cfg);
    q->connect(fake_rdma::pd());
    return q;
}

TEST(QueueFake, ConnectsAndDisconnects)
{
    auto q = connected_queue();
    EXPECT_FALSE(q->failed());
    EXPECT_EQ(q->failure(), "");
    q->disconnect();
    EXPECT_EQ(fake_rdma::disconnects(), 1);
}

// Over iWARP nobody listening at the port fails rdma_connect() itself
// (ECONNREFUSED) rather than bringing a REJECTED event as over RoCE and
// InfiniBand: the user reads the same reason either way, as rblk.ko says it.
TEST(QueueFake, ConnectRefusedInTheCallSaysNobodyListens)
{
    auto q = resolved_queue(QueueConfig{});
    fake_rdma::fail_connects(ECONNREFUSED);
    try {
        q->connect(fake_rdma::pd());
        ADD_FAILURE() << "connected";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "connection rejected (no NVMe-oF listener at this address?)");
    }
    fake_rdma::fail_connects(0);
}

// The CM channel failing as the queue disconnects (its device gone) is
// nothing the caller can act on: the cm_id's destruction ends the
// connection anyway. Neither disconnect() nor the destructor may throw.
TEST(QueueTeardown, DisconnectWhenTheCmChannelFailsDoesNotThrow)
{
    auto q = connected_queue();
    fake_rdma::fail_cm_reads(EIO);
    EXPECT_NO_THROW(q->disconnect());
    EXPECT_EQ(fake_rdma::disconnects(), 1);
    fake_rdma::fail_cm_reads(0);
}

TEST(QueueTeardown, DestroyedWhenTheCmChannelFailsDoesNotTerminate)
{
    // A throw out of ~Queue (noexcept) is std::terminate: the child aborts.
    EXPECT_EXIT(
        {
            auto q = connected_queue();
            fake_rdma::fail_cm_reads(EBADF);
            q.reset();
            std::exit(fake_rdma::disconnects() == 1 ? 0 : 3);
        },
        testing::ExitedWithCode(0), "");
}

// The ublk server's main thread reads failed() and failure() while the
// queue's thread fails it: once failed() says so, failure() is the whole
// reason. (Under ThreadSanitizer, a plain bool and string are a reported
// race here.)
TEST(QueueFailure, ReadByAnotherThreadWhileTheOwnerFailsIt)
{
    auto q = connected_queue();
    std::thread owner([&q] { q->fail("the target hung up"); });
    while (!q->failed())
        std::this_thread::yield();
    EXPECT_EQ(q->failure(), "qid 1: the target hung up");
    owner.join();
    EXPECT_EQ(q->failure(), "qid 1: the target hung up");  // the first reason stays
    q->fail("a second reason");
    EXPECT_EQ(q->failure(), "qid 1: the target hung up");
}

// Makes a well-formed RECV completion and its response wrong in one way.
using Spoil = void (*)(ibv_wc& wc, Completion& cqe);

// The target's answer to the command of the send_index-th SEND, in the
// buffer of the recv_index-th receive posted: its RECV completion
// (spoiled first, if asked).
ibv_wc response(std::size_t send_index, std::size_t recv_index, std::uint64_t result = 0, Spoil spoil = nullptr)
{
    const auto* cmd = reinterpret_cast<const Command*>(fake_rdma::sends().at(send_index).addr);
    const fake_rdma::Posted& rcv = fake_rdma::recvs().at(recv_index);
    Completion cqe{};
    cqe.cid = cmd->cid;
    cqe.result = result;
    ibv_wc wc{};
    wc.wr_id = rcv.wr_id;
    wc.status = IBV_WC_SUCCESS;
    wc.opcode = IBV_WC_RECV;
    wc.byte_len = sizeof(cqe);
    if (spoil)
        spoil(wc, cqe);
    std::memcpy(reinterpret_cast<void*>(rcv.addr), &cqe, sizeof(cqe));
    return wc;
}

// The response above, its RECV completion queued.
void respond(std::size_t send_index, std::size_t recv_index, std::uint64_t result = 0, Spoil spoil = nullptr)
{
    fake_rdma::complete(response(send_index, recv_index, result, spoil));
}

// The provider's completion of the i-th SEND.
ibv_wc send_completion(std::size_t i)
{
    ibv_wc wc{};
    wc.wr_id = fake_rdma::sends().at(i).wr_id;
    wc.status = IBV_WC_SUCCESS;
    wc.opcode = IBV_WC_SEND;
    return wc;
}

// The provider's completions of the signaled SENDs from `from` on: each
// retires itself and the unsignaled ones before it (SendWindow).
void complete_sends(std::size_t from)
{
    for (std::size_t i = from; i < fake_rdma::sends().size(); ++i)
        if (fake_rdma::sends()[i].signaled)
            fake_rdma::complete(send_completion(i));
}

Command read_command()
{
    Command cmd{};
    cmd.opcode = 0x02;
    cmd.nsid = 1;
    return cmd;
}

// `n` reads (user data `first` on) submitted and posted as one chain,
// and the provider done with their SENDs.
void send_reads(Queue& q, std::uint64_t first, std::uint64_t n)
{
    const std::size_t sent = fake_rdma::sends().size();
    for (std::uint64_t i = 0; i < n; ++i)
        ASSERT_TRUE(q.submit(read_command(), {}, first + i).ok());
    q.flush();
    ASSERT_EQ(fake_rdma::sends().size(), sent + n);
    complete_sends(sent);
}

// Each way a work completion can be wrong fails the queue with its own
// reason, and the command in flight ends with QueueDown.
struct BadCompletion {
    const char* reason;
    Spoil spoil;
};

TEST(QueueFailure, EachBadCompletionFailsTheQueueWithItsReason)
{
    const BadCompletion cases[] = {
        {"RECV failed: ", [](ibv_wc& wc, Completion&) { wc.status = IBV_WC_REM_ACCESS_ERR; }},
        {"completion of an unknown receive", [](ibv_wc& wc, Completion&) { wc.wr_id = 4096; }},
        {"short response (8 bytes)", [](ibv_wc& wc, Completion&) { wc.byte_len = 8; }},
        {"target invalidated a key", [](ibv_wc& wc, Completion&) { wc.wc_flags |= IBV_WC_WITH_INV; }},
        {"completion with an unknown command id 0x", [](ibv_wc&, Completion& cqe) { cqe.cid ^= 0x0f00; }},
        {"completion with a stale command id 0x", [](ibv_wc&, Completion& cqe) { cqe.cid ^= 0x1000; }},
        {"completion of an unknown send",
         [](ibv_wc& wc, Completion&) {
             wc.wr_id = 1ull << 31 | 12345;  // a SEND the window never took
             wc.opcode = IBV_WC_SEND;
         }},
    };
    for (const BadCompletion& c : cases) {
        SCOPED_TRACE(c.reason);
        auto q = connected_queue();
        ASSERT_TRUE(q->submit(read_command(), {}, 7).ok());
        q->flush();
        respond(0, 0, 0, c.spoil);
        QueueCompletion out[2];
        ASSERT_EQ(q->poll(out), 1u);
        EXPECT_EQ(out[0].user_data, 7u);
        EXPECT_EQ(out[0].status.kind, IoStatus::Kind::QueueDown);
        EXPECT_TRUE(q->failed());
        EXPECT_NE(q->failure().find(c.reason), std::string::npos) << q->failure();
    }
}

TEST(QueueDatapath, ConnectPostsEveryReceiveInOneCall)
{
    auto q = connected_queue();
    EXPECT_EQ(fake_rdma::recv_posts(), 1);
    EXPECT_EQ(fake_rdma::recvs().size(), 4u);
}

// Each response's receive goes back to the QP, but the ones one poll
// handled go in one chain: one ibv_post_recv() (one provider lock, one
// doorbell record) per poll rather than per response, as nvme-rdma's
// receive path does per CQ batch and SPDK's per poll.
TEST(QueueDatapath, ResponsesOfOnePollRepostTheirReceivesInOneCall)
{
    auto q = connected_queue();
    const int posts = fake_rdma::recv_posts();
    for (std::uint64_t i = 0; i < 3; ++i)
        ASSERT_TRUE(q->submit(read_command(), {}, 100 + i).ok());
    q->flush();
    EXPECT_EQ(fake_rdma::send_posts(), 1);
    ASSERT_EQ(fake_rdma::sends().size(), 3u);
    for (std::size_t i = 0; i < 3; ++i)
        respond(i, i, 7 + i);
    QueueCompletion out[8];
    ASSERT_EQ(q->poll(out), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(out[i].user_data, 100 + i);
        EXPECT_TRUE(out[i].status.ok());
        EXPECT_EQ(out[i].result, 7 + i);
    }
    EXPECT_EQ(fake_rdma::recv_posts() - posts, 1);
    ASSERT_EQ(fake_rdma::recvs().size(), 4u + 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(fake_rdma::recvs()[4 + i].wr_id, fake_rdma::recvs()[i].wr_id);
        EXPECT_EQ(fake_rdma::recvs()[4 + i].addr, fake_rdma::recvs()[i].addr);
    }
    EXPECT_FALSE(q->failed()) << q->failure();
}

// With recv_batch (an I/O queue's, kIoRecvBatch), the receives reaps
// consume wait in the chain until there are recv_batch of them, posted
// then in one call: a QD1 queue posts once per batch, not per response.
// The QP holds recv_batch - 1 receives beyond the queue's size, so every
// command that may be in flight finds one whatever the chain holds.
TEST(QueueDatapath, ReceivesGoBackOncePerBatchAndTheQpNeverHoldsFewerThanTheSize)
{
    QueueConfig cfg;
    cfg.qid = 1;
    cfg.size = 4;
    cfg.recv_batch = 3;
    auto q = resolved_queue(cfg);
    q->connect(fake_rdma::pd());
    EXPECT_EQ(fake_rdma::recv_posts(), 1);
    ASSERT_EQ(fake_rdma::recvs().size(), 6u);
    // Receives in the QP: what was posted minus what a response consumed.
    std::size_t held = 6;
    std::size_t next_recv = 0;  // the oldest receive the QP holds
    QueueCompletion out[4];
    for (std::uint64_t i = 0; i < 7; ++i) {
        const std::size_t posts = fake_rdma::recv_posts();
        ASSERT_TRUE(q->submit(read_command(), {}, i).ok());
        q->flush();
        complete_sends(fake_rdma::sends().size() - 1);
        respond(fake_rdma::sends().size() - 1, next_recv++);
        --held;
        ASSERT_EQ(q->poll(out), 1u);
        EXPECT_EQ(out[0].user_data, i);
        const std::size_t posted = static_cast<std::size_t>(fake_rdma::recv_posts()) - posts;
        // The 3rd, 6th, ... response's reap posts the three chained.
        EXPECT_EQ(posted, (i + 1) % 3 == 0 ? 1u : 0u) << "after response " << i;
        if (posted)
            held += 3;
        EXPECT_GE(held, cfg.size) << "after response " << i;
    }
    EXPECT_EQ(fake_rdma::recvs().size(), 6u + 6u);
    EXPECT_FALSE(q->failed()) << q->failure();
}

// Rounds that wrap the ring of finished commands (4 entries) hand each
// completion out once, oldest first.
TEST(QueueDatapath, CompletionsComeOutInOrderAcrossTheReadyRingsWrap)
{
    auto q = connected_queue();
    std::uint64_t next = 0;
    for (int round = 0; round < 5; ++round) {
        const std::size_t sent = fake_rdma::sends().size();
        const std::size_t recvd = fake_rdma::recvs().size();
        ASSERT_NO_FATAL_FAILURE(send_reads(*q, next, 3));
        // Answered out of order: the last command first.
        respond(sent + 2, recvd - 4);
        respond(sent + 0, recvd - 3);
        respond(sent + 1, recvd - 2);
        QueueCompletion out[2];
        ASSERT_EQ(q->poll(out), 2u);
        EXPECT_EQ(out[0].user_data, next + 2);
        EXPECT_EQ(out[1].user_data, next + 0);
        ASSERT_EQ(q->poll(out), 1u);
        EXPECT_EQ(out[0].user_data, next + 1);
        EXPECT_EQ(q->in_flight(), 0);
        next += 3;
    }
    EXPECT_FALSE(q->failed()) << q->failure();
}

// A poll with room for fewer completions than the CQ holds (fio takes one
// per call) keeps the rest for the next poll, which hands them out before
// anything newer and, when they fill its array, leaves the CQ alone: the
// later response stays there (its receive not yet re-posted) until a poll
// with room reaps it.
TEST(QueueDatapath, LeftOversComeOutBeforeWhatTheNextPollFinds)
{
    auto q = connected_queue();
    ASSERT_NO_FATAL_FAILURE(send_reads(*q, 200, 3));
    respond(0, 0);
    respond(1, 1);
    QueueCompletion one[1];
    ASSERT_EQ(q->poll(one), 1u);
    EXPECT_EQ(one[0].user_data, 200u);
    const int posts = fake_rdma::recv_posts();
    respond(2, 2);
    ASSERT_EQ(q->poll(one), 1u);
    EXPECT_EQ(one[0].user_data, 201u);
    EXPECT_EQ(fake_rdma::recv_posts(), posts);  // the CQ was not polled
    QueueCompletion more[4];
    ASSERT_EQ(q->poll(more), 1u);
    EXPECT_EQ(more[0].user_data, 202u);
    EXPECT_EQ(fake_rdma::recv_posts(), posts + 1);
    EXPECT_EQ(q->in_flight(), 0);
    EXPECT_FALSE(q->failed()) << q->failure();
}

// A poll that the ready ring alone fills still posts what was submitted
// since the last one (poll()'s promise), without polling the CQ.
TEST(QueueDatapath, APollTheRingFillsPostsWhatWasSubmitted)
{
    auto q = connected_queue();
    ASSERT_NO_FATAL_FAILURE(send_reads(*q, 300, 2));
    respond(0, 0);
    respond(1, 1);
    QueueCompletion one[1];
    ASSERT_EQ(q->poll(one), 1u);  // reaps both: one into the ring
    const int posts = fake_rdma::send_posts();
    const int recvs = fake_rdma::recv_posts();
    ASSERT_TRUE(q->submit(read_command(), {}, 302).ok());
    ASSERT_EQ(q->poll(one), 1u);
    EXPECT_EQ(one[0].user_data, 301u);
    EXPECT_EQ(fake_rdma::send_posts(), posts + 1);
    EXPECT_EQ(fake_rdma::recv_posts(), recvs);
    ASSERT_TRUE(q->submit(read_command(), {}, 303).ok());
    EXPECT_EQ(q->wait(one, std::chrono::milliseconds(0)), 0u);  // the ring is empty: wait posts too
    EXPECT_EQ(fake_rdma::send_posts(), posts + 2);
    EXPECT_FALSE(q->failed()) << q->failure();
}

// A wait that slept arms the CQ again as it takes the event, and the poll
// behind that arming drains the CQ: the next wait sleeps first, arming
// nothing and polling nothing before it. Sleeping at QD1 costs one CQ
// poll a command (it was three, then two).
TEST(QueueEvents, AWaitAfterAWakeUpSleepsBeforeItPolls)
{
    using namespace std::chrono_literals;
    auto q = connected_queue();
    for (std::uint64_t i = 0; i < 3; ++i) {
        ASSERT_TRUE(q->submit(read_command(), {}, 50 + i).ok());
        q->flush();
        const int polls = fake_rdma::polls();
        const int arms = fake_rdma::arms();
        if (fake_rdma::sends().at(i).signaled)
            fake_rdma::complete_on_wake(send_completion(i));
        fake_rdma::complete_on_wake(response(i, i));
        QueueCompletion out[1];
        ASSERT_EQ(q->wait(out, 5s), 1u);
        EXPECT_EQ(out[0].user_data, 50 + i);
        EXPECT_TRUE(out[0].status.ok());
        if (i == 0)
            continue;  // the first wait arms before it sleeps
        EXPECT_EQ(fake_rdma::polls() - polls, 1) << "command " << i;
        EXPECT_EQ(fake_rdma::arms() - arms, 1) << "command " << i;
    }
    EXPECT_FALSE(q->failed()) << q->failure();
}

// A quiet queue's wait sleeps before it polls: a completion that came
// before the wait has raised the event, which wakes it at once.
TEST(QueueEvents, ACompletionBeforeAQuietWaitWakesIt)
{
    using namespace std::chrono_literals;
    auto q = connected_queue();
    QueueCompletion out[1];
    ASSERT_TRUE(q->submit(read_command(), {}, 70).ok());
    q->flush();
    fake_rdma::complete_on_wake(response(0, 0));
    ASSERT_EQ(q->wait(out, 5s), 1u);  // arms, sleeps, polls the CQ dry: quiet
    ASSERT_TRUE(q->submit(read_command(), {}, 71).ok());
    q->flush();
    fake_rdma::complete(response(1, 1));  // armed: the event fires now
    const int polls = fake_rdma::polls();
    ASSERT_EQ(q->wait(out, 5s), 1u);
    EXPECT_EQ(out[0].user_data, 71u);
    EXPECT_EQ(fake_rdma::polls() - polls, 1);
    // What a wait must not sleep on: a command not yet posted (the wait
    // posts it first), and a zero timeout, which polls.
    ASSERT_TRUE(q->submit(read_command(), {}, 72).ok());
    const int posts = fake_rdma::send_posts();
    EXPECT_EQ(q->wait(out, 20ms), 0u);
    EXPECT_EQ(fake_rdma::send_posts(), posts + 1);
    fake_rdma::complete(response(2, 2));
    ASSERT_EQ(q->wait(out, 5s), 1u);
    EXPECT_EQ(out[0].user_data, 72u);
    ASSERT_TRUE(q->submit(read_command(), {}, 73).ok());
    q->flush();
    fake_rdma::complete(response(3, 3));
    ASSERT_EQ(q->wait(out, 0ms), 1u);
    EXPECT_EQ(out[0].user_data, 73u);
    EXPECT_FALSE(q->failed()) << q->failure();
}

// An event loop of the caller's (the ublk server's): taking the event
// arms the CQ again, so the next arm_events() arms nothing and the
// caller, seeing the arming in force, need not poll behind it.
TEST(QueueEvents, TakingTheEventArmsAgainForTheCallersLoop)
{
    auto q = connected_queue();
    ASSERT_TRUE(q->submit(read_command(), {}, 70).ok());
    EXPECT_FALSE(q->events_armed());
    ASSERT_TRUE(q->arm_events());
    EXPECT_EQ(fake_rdma::arms(), 1);
    EXPECT_TRUE(q->events_armed());
    QueueCompletion out[2];
    EXPECT_EQ(q->poll(out), 0u);
    respond(0, 0);  // the armed CQ raises its event
    const int reads = fake_rdma::event_reads();
    q->take_events();
    // An arming raises one event: no second read to find the channel empty.
    EXPECT_EQ(fake_rdma::event_reads() - reads, 1);
    EXPECT_EQ(fake_rdma::arms(), 2);
    EXPECT_TRUE(q->events_armed());
    ASSERT_EQ(q->poll(out), 1u);
    EXPECT_EQ(out[0].user_data, 70u);
    ASSERT_TRUE(q->submit(read_command(), {}, 71).ok());
    EXPECT_TRUE(q->arm_events());
    EXPECT_EQ(fake_rdma::arms(), 2);  // still in force
    q->take_events();  // no event came: nothing taken, nothing armed
    EXPECT_EQ(fake_rdma::arms(), 2);
    EXPECT_FALSE(q->failed()) << q->failure();
}

void complete_send(std::size_t i)
{
    ibv_wc wc{};
    wc.wr_id = fake_rdma::sends().at(i).wr_id;
    wc.status = IBV_WC_SUCCESS;
    wc.opcode = IBV_WC_SEND;
    fake_rdma::complete(wc);
}

Command write_command()
{
    Command cmd = read_command();
    cmd.opcode = 0x01;
    return cmd;
}

// Commands sit one cache line apart, whatever the in-capsule size.
TEST(QueueCapsule, CommandsAreDense)
{
    auto q = connected_queue(4096);
    for (std::uint64_t i = 0; i < 3; ++i)
        ASSERT_TRUE(q->submit(read_command(), {}, i).ok());
    q->flush();
    ASSERT_EQ(fake_rdma::sends().size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(fake_rdma::sends()[i].num_sge, 1);
        EXPECT_EQ(fake_rdma::sends()[i].addr, fake_rdma::sends()[0].addr + 64 * i);
    }
}

// A write from the caller's registered memory: the SEND reads it where it
// is (no copy), signaled, and the command ends only when both its
// response and its SEND's completion are in, in either order: the caller
// may free the buffer once the command ends.
TEST(QueueCapsule, RegisteredDataIsSentInPlaceAndEndsOnItsSendToo)
{
    for (const bool response_first : {true, false}) {
        auto q = connected_queue(4096);
        std::vector<std::byte> buf(512, std::byte{0x5a});
        ASSERT_TRUE(q->submit(write_command(), {buf, 0x77, false}, 42).ok());
        q->flush();
        ASSERT_EQ(fake_rdma::sends().size(), 1u);
        const fake_rdma::Posted& p = fake_rdma::sends()[0];
        EXPECT_EQ(p.num_sge, 2);
        EXPECT_EQ(p.data, reinterpret_cast<std::uint64_t>(buf.data()));
        EXPECT_EQ(p.data_len, 512u);
        EXPECT_EQ(p.data_lkey, 0x77u);
        EXPECT_TRUE(p.signaled);
        // The command says its data follows it in the capsule.
        const auto* cmd = reinterpret_cast<const Command*>(p.addr);
        EXPECT_EQ(cmd->dptr.type, in_capsule_sgl(512).type);
        QueueCompletion out[2];
        if (response_first)
            respond(0, 0);
        else
            complete_send(0);
        EXPECT_EQ(q->poll(out), 0u) << (response_first ? "ended before its SEND completed"
                                                       : "ended before its response");
        if (response_first)
            complete_send(0);
        else
            respond(0, 0);
        ASSERT_EQ(q->poll(out), 1u);
        EXPECT_EQ(out[0].user_data, 42u);
        EXPECT_TRUE(out[0].status.ok());
        EXPECT_FALSE(q->failed()) << q->failure();
    }
}

// The queue's pool outlives the connection: its data goes in place, and
// the command ends on its response alone (its SEND unsignaled).
TEST(QueueCapsule, StableDataEndsOnItsResponseAlone)
{
    auto q = connected_queue(4096);
    std::vector<std::byte> buf(512, std::byte{1});
    ASSERT_TRUE(q->submit(write_command(), {buf, 0x99, true}, 7).ok());
    q->flush();
    ASSERT_EQ(fake_rdma::sends().size(), 1u);
    EXPECT_EQ(fake_rdma::sends()[0].data, reinterpret_cast<std::uint64_t>(buf.data()));
    EXPECT_FALSE(fake_rdma::sends()[0].signaled);
    respond(0, 0);
    QueueCompletion out[2];
    ASSERT_EQ(q->poll(out), 1u);
    EXPECT_EQ(out[0].user_data, 7u);
}

// Memory that is not registered is copied: the caller may reuse it at once.
TEST(QueueCapsule, UnregisteredDataIsCopied)
{
    auto q = connected_queue(4096);
    std::vector<std::byte> buf(16, std::byte{0x3c});
    ASSERT_TRUE(q->submit(write_command(), {buf, 0, false}, 9).ok());
    std::fill(buf.begin(), buf.end(), std::byte{0});
    q->flush();
    const fake_rdma::Posted& p = fake_rdma::sends().at(0);
    ASSERT_EQ(p.num_sge, 2);
    EXPECT_NE(p.data, reinterpret_cast<std::uint64_t>(buf.data()));
    EXPECT_EQ(p.data_len, 16u);
    const auto* sent = reinterpret_cast<const std::byte*>(p.data);
    for (std::size_t i = 0; i < 16; ++i)
        EXPECT_EQ(sent[i], std::byte{0x3c});
    EXPECT_FALSE(p.signaled);
    respond(0, 0);
    QueueCompletion out[2];
    ASSERT_EQ(q->poll(out), 1u);
}

TEST(QueueCapsule, DataBeyondTheInCapsuleSizeIsRefused)
{
    auto q = connected_queue(256);
    std::vector<std::byte> buf(512);
    EXPECT_EQ(q->submit(write_command(), {buf, 0x77, false}, 1).kind, IoStatus::Kind::Invalid);
}

// A submission reads no clock: a command's timeout counts from the first
// poll that finds it in flight. A queue idle for longer than the timeout
// must still not expire a command submitted after it (the time the queue
// last looked is not the time of the submission), and a command nobody
// answers must still expire.
TEST(QueueTimeout, CountsFromAfterTheSubmissionAndEnds)
{
    using namespace std::chrono_literals;
    auto q = connected_queue(0, 50ms);
    QueueCompletion out[2];
    EXPECT_EQ(q->poll(out), 0u);  // a scan of an empty queue
    std::this_thread::sleep_for(250ms);
    ASSERT_TRUE(q->submit(read_command(), {}, 1).ok());
    ASSERT_TRUE(q->submit(read_command(), {}, 2).ok());
    ASSERT_EQ(q->poll(out), 0u);  // scans: neither is past a deadline it just got
    EXPECT_FALSE(q->failed()) << q->failure();
    respond(0, 0);
    ASSERT_EQ(q->poll(out), 1u);
    EXPECT_EQ(out[0].user_data, 1u);
    EXPECT_TRUE(out[0].status.ok());
    // The other one is never answered: it expires (a bound, not a timing).
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    std::size_t n = 0;
    while (n == 0 && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::sleep_for(10ms);
        n = q->poll(out);
    }
    ASSERT_EQ(n, 1u);
    EXPECT_EQ(out[0].user_data, 2u);
    EXPECT_EQ(out[0].status.kind, IoStatus::Kind::Timeout);
    EXPECT_TRUE(q->failed());
    EXPECT_NE(q->failure().find("command timed out"), std::string::npos) << q->failure();
}

// A caller that takes one completion per poll, with more waiting in the
// ready ring, is served from the ring without a look at the clock; the
// deadlines are checked once the ring drains, so a command nobody answers
// still expires.
TEST(QueueTimeout, ExpiresWhileTheCallerTakesOneCompletionAtATime)
{
    using namespace std::chrono_literals;
    auto q = connected_queue(0, 50ms);
    for (std::uint64_t i = 0; i < 4; ++i)
        ASSERT_TRUE(q->submit(read_command(), {}, 10 + i).ok());
    QueueCompletion one[1];
    EXPECT_EQ(q->poll(one), 0u);  // posts them and starts their deadlines
    for (std::uint32_t i = 0; i < 3; ++i)
        respond(i, i);
    std::this_thread::sleep_for(100ms);  // the fourth is past its deadline
    std::vector<QueueCompletion> got;
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    while (got.size() < 4 && std::chrono::steady_clock::now() < give_up) {
        if (q->poll(one) == 1)
            got.push_back(one[0]);
    }
    ASSERT_EQ(got.size(), 4u);
    for (std::uint64_t i = 0; i < 3; ++i) {
        EXPECT_EQ(got[i].user_data, 10 + i);
        EXPECT_TRUE(got[i].status.ok());
    }
    EXPECT_EQ(got[3].user_data, 13u);
    EXPECT_EQ(got[3].status.kind, IoStatus::Kind::Timeout);
    EXPECT_TRUE(q->failed());
}

// A controller whose association failed (its keep-alive, or another
// queue's thread) fails its I/O queue at the queue's next deadline scan,
// whoever polls it (its own poll, or its poll group's).
TEST(QueueFailure, TheControllersAssociationFailureFailsTheQueue)
{
    using namespace std::chrono_literals;
    std::atomic<std::uint32_t> epoch{7};
    QueueConfig cfg;
    cfg.qid = 1;
    cfg.size = 4;
    cfg.ctrl_epoch = &epoch;
    cfg.epoch = 7;
    auto q = resolved_queue(cfg);
    q->connect(fake_rdma::pd());
    ASSERT_TRUE(q->submit(read_command(), {}, 5).ok());
    QueueCompletion out[2];
    EXPECT_EQ(q->poll(out), 0u);  // a scan: the association is the queue's
    epoch = 8;
    std::size_t n = 0;
    for (const auto give_up = std::chrono::steady_clock::now() + 5s; !n && std::chrono::steady_clock::now() < give_up;)
        n = q->poll(out);
    ASSERT_EQ(n, 1u);
    EXPECT_EQ(out[0].user_data, 5u);
    EXPECT_EQ(out[0].status.kind, IoStatus::Kind::QueueDown);
    EXPECT_EQ(q->failure(), "qid 1: the controller failed (its keep-alive, or another of its queues)");
}

// A request that names its registration (IoRequest::reg, as the fio
// engine's do) is keyed with it, without a lookup; one that names a
// registration not covering its data is looked up as any other, and
// memory nobody registered is refused whatever it names.
TEST(IoQueueRequest, ANamedRegistrationIsUsedOnlyWhereItCoversTheData)
{
    constexpr std::size_t kPg = 4096;
    fake_rdma::reset();
    MemoryMap map(fake_rdma::pd());
    ControllerInfo ctrl;
    ctrl.max_transfer = 128 * 1024;
    NamespaceInfo ns;
    ns.nsid = 1;
    ns.nsze = 1 << 20;
    ns.lba_shift = 12;
    IoQueue io(fake_rdma::pd(), map, ctrl, {ns}, 4);
    QueueConfig cfg;
    cfg.qid = 1;
    cfg.size = 4;
    auto q = resolved_queue(cfg, false);
    q->connect(fake_rdma::pd());
    io.attach(std::move(q));

    const AlignedBytes a = aligned_bytes(4 * kPg, "a");
    const AlignedBytes b = aligned_bytes(4 * kPg, "b");
    const AlignedBytes nobodys = aligned_bytes(kPg, "unregistered");
    ASSERT_EQ(0, io.register_buffer(a.get(), 4 * kPg));
    ASSERT_EQ(0, io.register_buffer(b.get(), 4 * kPg));
    const Registration* ra = io.registration(a.get(), 4 * kPg);
    const Registration* rb = io.registration(b.get(), 4 * kPg);
    ASSERT_NE(nullptr, ra);
    ASSERT_NE(nullptr, rb);
    ASSERT_NE(ra->rkey, rb->rkey);

    const auto read = [&](void* buf, const Registration* reg) {
        IoRequest r;
        r.op = IoOp::Read;
        r.slba = 8;
        r.nlb = 1;
        r.buf = buf;
        r.len = kPg;
        r.reg = reg;
        return io.submit(r);
    };
    ASSERT_TRUE(read(a.get() + kPg, ra).ok());
    ASSERT_TRUE(read(b.get(), ra).ok()) << "named a, holds b: looked up";
    EXPECT_EQ(IoStatus::Kind::Invalid, read(nobodys.get(), ra).kind);
    EXPECT_EQ(IoStatus::Kind::Invalid, read(a.get() + 3 * kPg + 1, ra).kind) << "runs past a's end";
    io.flush();
    ASSERT_EQ(fake_rdma::sends().size(), 2u);
    const auto* first = reinterpret_cast<const Command*>(fake_rdma::sends()[0].addr);
    const auto* second = reinterpret_cast<const Command*>(fake_rdma::sends()[1].addr);
    EXPECT_EQ(keyed_sgl_key(first->dptr), ra->rkey);
    EXPECT_EQ(first->dptr.addr, reinterpret_cast<std::uint64_t>(a.get() + kPg));
    EXPECT_EQ(keyed_sgl_key(second->dptr), rb->rkey);
    EXPECT_EQ(io.stats().registered, 2u);
    (void)io.detach();
}

// A queue of 4 commands in `group`, connected; the first of a test resets
// the fake (the others add to what it recorded: their receives follow).
std::unique_ptr<Queue> group_queue(PollGroup& group, bool first)
{
    QueueConfig cfg;
    cfg.qid = 1;
    cfg.size = 4;
    cfg.group = &group;
    auto q = resolved_queue(cfg, first);
    q->connect(fake_rdma::pd());
    return q;
}

// Two queues (of two controllers, say) in one group: a's receives are the
// first 4 posted, b's the next 4.
class PollGroupPair : public testing::Test {
protected:
    PollGroup group;
    std::unique_ptr<Queue> a = group_queue(group, true);
    std::unique_ptr<Queue> b = group_queue(group, false);

    // A read on each (user data 1 on a, 2 on b), posted.
    void read_on_each()
    {
        ASSERT_TRUE(a->submit(read_command(), {}, 1).ok());
        ASSERT_TRUE(b->submit(read_command(), {}, 2).ok());
        group.flush();
        ASSERT_EQ(fake_rdma::sends().size(), 2u);
    }
};

// Two queues (of two controllers, say) in one group share one CQ: one
// ibv_poll_cq() hands out both queues' completions, and each queue's
// receives go back to its own QP in one call.
TEST_F(PollGroupPair, OnePollReapsEveryMembersCompletions)
{
    EXPECT_EQ(fake_rdma::cqs_made(), 1);
    EXPECT_EQ(group.members(), 2u);
    EXPECT_EQ(group.devices(), 1u);
    EXPECT_EQ(a->event_fd(), -1);  // the group sleeps for its members
    ASSERT_TRUE(a->submit(read_command(), {}, 1).ok());
    ASSERT_TRUE(b->submit(read_command(), {}, 2).ok());
    ASSERT_TRUE(b->submit(read_command(), {}, 3).ok());
    QueueCompletion out[8];
    EXPECT_EQ(group.poll(out), 0u);  // posts both queues' commands
    ASSERT_EQ(fake_rdma::sends().size(), 3u);
    respond(2, 4, 30);  // b's receives are the 5th to 8th posted
    respond(0, 0, 10);
    respond(1, 5, 20);
    const int polls = fake_rdma::polls();
    const int recv_posts = fake_rdma::recv_posts();
    ASSERT_EQ(group.poll(out), 3u);
    EXPECT_EQ(fake_rdma::polls() - polls, 1);
    EXPECT_EQ(fake_rdma::recv_posts() - recv_posts, 2);
    EXPECT_EQ(out[0].user_data, 3u);
    EXPECT_EQ(out[0].result, 30u);
    EXPECT_EQ(out[1].user_data, 1u);
    EXPECT_EQ(out[1].result, 10u);
    EXPECT_EQ(out[2].user_data, 2u);
    EXPECT_TRUE(out[0].status.ok() && out[1].status.ok() && out[2].status.ok());
    EXPECT_EQ(a->in_flight(), 0);
    EXPECT_EQ(b->in_flight(), 0);
    EXPECT_FALSE(a->failed() || b->failed()) << a->failure() << b->failure();
}

// A member's own poll (a Fabrics Connect's wait) reaps the shared CQ too:
// it takes its own completions and leaves the other member's for the
// group's next poll, in order.
TEST_F(PollGroupPair, AMembersOwnPollKeepsTheOthersCompletions)
{
    ASSERT_NO_FATAL_FAILURE(read_on_each());
    respond(1, 4);
    respond(0, 0);
    QueueCompletion out[4];
    ASSERT_EQ(a->poll(out), 1u);
    EXPECT_EQ(out[0].user_data, 1u);
    ASSERT_EQ(group.poll(out), 1u);
    EXPECT_EQ(out[0].user_data, 2u);
    EXPECT_EQ(b->in_flight(), 0);
}

// A queue that leaves (destroyed: a reconnect, a controller gone) takes
// nothing of the others with it: what the CQ held for them as it left is
// theirs at the next poll. A completion that still names it later (a
// provider's late one) reaches nobody, not even the queue that takes its
// slot in the group next.
TEST_F(PollGroupPair, ADepartedQueuesCompletionsReachNobody)
{
    ASSERT_NO_FATAL_FAILURE(read_on_each());
    respond(1, 4);                                  // b's, in the CQ as a leaves
    const ibv_wc late = response(0, 0);             // a's answer, after it left
    const std::uint64_t a_send = fake_rdma::sends().at(0).wr_id;
    a.reset();
    EXPECT_EQ(group.members(), 1u);
    auto c = group_queue(group, false);             // takes a's slot
    ASSERT_TRUE(c->submit(read_command(), {}, 3).ok());
    group.flush();
    fake_rdma::complete(late);
    ibv_wc send{};
    send.wr_id = a_send;
    send.status = IBV_WC_WR_FLUSH_ERR;
    fake_rdma::complete(send);
    QueueCompletion out[4];
    ASSERT_EQ(group.poll(out), 1u);
    EXPECT_EQ(out[0].user_data, 2u);
    EXPECT_EQ(group.strays(), 2u);
    EXPECT_FALSE(c->failed()) << c->failure();
    EXPECT_EQ(c->in_flight(), 1);
    EXPECT_FALSE(b->failed()) << b->failure();
}

// The group sleeps on one completion channel for its members, and wakes
// for a completion that comes while it sleeps.
TEST_F(PollGroupPair, AWaitSleepsForEveryMember)
{
    using namespace std::chrono_literals;
    ASSERT_TRUE(b->submit(read_command(), {}, 9).ok());
    group.flush();
    fake_rdma::complete_on_wake(response(0, 4));
    QueueCompletion out[2];
    ASSERT_EQ(group.wait(out, 5s), 1u);
    EXPECT_EQ(out[0].user_data, 9u);
    EXPECT_GE(fake_rdma::arms(), 1);
    EXPECT_EQ(group.wait(out, 0ms), 0u);
    EXPECT_FALSE(a->failed() || b->failed());
}

// Once a wake-up's poll drained the CQ behind the arming, the group's
// next wait sleeps first: one CQ poll a command at QD1, and a completion
// that came before the wait wakes it at once.
TEST_F(PollGroupPair, AQuietGroupSleepsBeforeItPolls)
{
    using namespace std::chrono_literals;
    QueueCompletion out[2];
    for (std::uint64_t i = 0; i < 3; ++i) {
        Queue& q = i % 2 ? *b : *a;
        ASSERT_TRUE(q.submit(read_command(), {}, 20 + i).ok());
        group.flush();
        const int polls = fake_rdma::polls();
        // a's receives are the 1st to 4th posted, b's the 5th to 8th.
        fake_rdma::complete_on_wake(response(i, i % 2 ? 4 + i : i));
        ASSERT_EQ(group.wait(out, 5s), 1u);
        EXPECT_EQ(out[0].user_data, 20 + i);
        if (i > 0) {
            EXPECT_EQ(fake_rdma::polls() - polls, 1) << "command " << i;
        }
    }
    // A command not yet posted is posted before the sleep.
    ASSERT_TRUE(a->submit(read_command(), {}, 30).ok());
    const int posts = fake_rdma::send_posts();
    EXPECT_EQ(group.wait(out, 20ms), 0u);
    EXPECT_EQ(fake_rdma::send_posts(), posts + 1);
    fake_rdma::complete(response(3, 3));  // armed: the event fires now
    ASSERT_EQ(group.wait(out, 5s), 1u);
    EXPECT_EQ(out[0].user_data, 30u);
    EXPECT_FALSE(a->failed() || b->failed());
}

// A queue that fails fails alone: its commands end with QueueDown through
// the group's poll, and the other member carries on.
TEST_F(PollGroupPair, AFailedMemberFailsAlone)
{
    ASSERT_NO_FATAL_FAILURE(read_on_each());
    respond(0, 0, 0, [](ibv_wc& wc, Completion&) { wc.byte_len = 8; });
    respond(1, 4);
    QueueCompletion out[4];
    ASSERT_EQ(group.poll(out), 2u);
    EXPECT_EQ(out[0].user_data, 1u);
    EXPECT_EQ(out[0].status.kind, IoStatus::Kind::QueueDown);
    EXPECT_EQ(out[1].user_data, 2u);
    EXPECT_TRUE(out[1].status.ok());
    EXPECT_TRUE(a->failed());
    EXPECT_FALSE(b->failed()) << b->failure();
}

}  // namespace
}  // namespace rblk::bypass
