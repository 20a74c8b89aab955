// A Queue's host-side logic against fake_rdma (no RDMA device): its
// teardown when the CM channel fails, and its failure as another thread
// reads it.
#include "fake_rdma.hpp"

#include <rblk/bypass/queue.hpp>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

namespace rblk::bypass {
namespace {

std::unique_ptr<Queue> connected_queue()
{
    fake_rdma::reset();
    sockaddr_in dst{};
    dst.sin_family = AF_INET;
    dst.sin_port = htons(4420);
    dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QueueConfig cfg;
    cfg.qid = 1;
    cfg.size = 4;
    auto q = std::make_unique<Queue>(cfg, reinterpret_cast<const sockaddr*>(&dst), nullptr);
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

}  // namespace
}  // namespace rblk::bypass
