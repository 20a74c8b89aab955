// The send queue's accounting for mostly unsignaled SENDs: one signaled
// WR in sig_every, a signaled completion retiring everything before it,
// the window refusing WRs once full, and completions that name no WR in
// the window refused (the queue fails on them).
#include <rblk/bypass/send_window.hpp>

#include <gtest/gtest.h>

namespace rblk::bypass {
namespace {

TEST(SendWindow, SigEveryFollowsTheQueueSize)
{
    EXPECT_EQ(1u, SendWindow::sig_every_for(1));
    EXPECT_EQ(1u, SendWindow::sig_every_for(2));
    EXPECT_EQ(8u, SendWindow::sig_every_for(16));
    EXPECT_EQ(SendWindow::kMaxSigEvery, SendWindow::sig_every_for(128));
    EXPECT_THROW(SendWindow(4, 0), std::invalid_argument);
    EXPECT_THROW(SendWindow(4, 5), std::invalid_argument);
}

TEST(SendWindow, OneInSigEveryIsSignaled)
{
    SendWindow w(64, 4);
    for (std::uint64_t i = 0; i < 12; ++i) {
        const auto s = w.take();
        EXPECT_EQ(i, s.seq);
        EXPECT_EQ(i % 4 == 3, s.signaled) << i;
    }
    EXPECT_EQ(12u, w.occupancy());
}

TEST(SendWindow, EverySendSignaledAtSigEveryOne)
{
    SendWindow w(2, 1);
    for (int i = 0; i < 3; ++i) {
        const auto s = w.take();
        EXPECT_TRUE(s.signaled);
        EXPECT_TRUE(w.retire(s.seq));
        EXPECT_EQ(0u, w.occupancy());
    }
}

TEST(SendWindow, SignaledCompletionRetiresWhatCameBefore)
{
    SendWindow w(8, 4);
    std::uint64_t sig = 0;
    for (int i = 0; i < 6; ++i) {
        const auto s = w.take();
        if (s.signaled)
            sig = s.seq;
    }
    EXPECT_EQ(3u, sig);
    EXPECT_EQ(6u, w.occupancy());
    EXPECT_TRUE(w.retire(sig));
    EXPECT_EQ(2u, w.occupancy());  // the two unsignaled after it wait for the next
}

TEST(SendWindow, FullUntilRetiredAndNeverWithoutASignaledWr)
{
    SendWindow w(6, 3);
    std::uint64_t last_sig = 0;
    bool any_sig = false;
    while (!w.full()) {
        const auto s = w.take();
        if (s.signaled) {
            last_sig = s.seq;
            any_sig = true;
        }
    }
    EXPECT_EQ(6u, w.occupancy());
    // A full window holds a signaled WR, whose completion frees it.
    ASSERT_TRUE(any_sig);
    EXPECT_TRUE(w.retire(last_sig));
    EXPECT_FALSE(w.full());
    EXPECT_EQ(0u, w.occupancy());
}

TEST(SendWindow, CompletionOfNoWrInTheWindowIsRefused)
{
    SendWindow w(8, 2);
    EXPECT_FALSE(w.retire(0));  // nothing posted
    w.take();
    const auto s = w.take();
    EXPECT_FALSE(w.retire(s.seq + 1));  // never posted
    EXPECT_TRUE(w.retire(s.seq));
    EXPECT_FALSE(w.retire(s.seq));  // twice
    EXPECT_FALSE(w.retire(0));      // behind what is retired
    EXPECT_EQ(0u, w.occupancy());
}

// A wr_id keeps a sequence number's low 31 bits (the rest names the
// queue in a poll group): each WR in the window is found again from them,
// and bits of no WR there give a number retire() refuses.
TEST(SendWindow, ASequenceNumberComesBackFromItsLowBits)
{
    SendWindow w(8, 4);
    EXPECT_FALSE(w.retire(w.seq_from_bits(0)));  // nothing posted
    std::uint64_t seqs[6];
    for (auto& q : seqs)
        q = w.take().seq;
    for (const std::uint64_t q : seqs)
        EXPECT_EQ(w.seq_from_bits(q & ((1ull << SendWindow::kSeqBits) - 1)), q);
    EXPECT_FALSE(w.retire(w.seq_from_bits(6)));     // never posted
    EXPECT_FALSE(w.retire(w.seq_from_bits(12345)));
    EXPECT_TRUE(w.retire(w.seq_from_bits(3)));
    EXPECT_FALSE(w.retire(w.seq_from_bits(2)));     // behind what is retired
    EXPECT_TRUE(w.retire(w.seq_from_bits(5)));
}

// A WR the caller must see complete is signaled whatever the count, and
// the count to the next signaled one starts again after it.
TEST(SendWindow, AWrThatMustBeSignaledIsAndRestartsTheCount)
{
    SendWindow w(16, 4);
    EXPECT_FALSE(w.take().signaled);
    EXPECT_TRUE(w.take(true).signaled);
    EXPECT_FALSE(w.take().signaled);
    EXPECT_FALSE(w.take().signaled);
    EXPECT_FALSE(w.take().signaled);
    EXPECT_TRUE(w.take().signaled);  // the 4th after the forced one
}

}  // namespace
}  // namespace rblk::bypass
