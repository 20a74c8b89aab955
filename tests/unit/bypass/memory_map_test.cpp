// The memory map of a protection domain against fake_rdma's regions: what
// find() returns for every shape of registration, the users a shared
// registration counts, and a lock-free find() beside another thread's
// changes.
#include "fake_rdma.hpp"

#include <rblk/bypass/memory.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

namespace rblk::bypass {
namespace {

constexpr std::size_t kPage = 4096;

struct MemoryMapTest : ::testing::Test {
    AlignedBytes mem = aligned_bytes(64 * kPage, "the test's memory");
    std::byte* at(std::size_t off) { return mem.get() + off; }
    MemoryMap map{fake_rdma::pd()};
};

// The VmFlags of the mapping that holds `p`, from /proc/self/smaps.
std::string vm_flags_of(const void* p)
{
    std::ifstream smaps("/proc/self/smaps");
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        unsigned long lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' '))
            inside = a >= lo && a < hi;
        else if (inside && line.rfind("VmFlags:", 0) == 0)
            return line;
    }
    return "";
}

// A pool of a huge page or more (an I/O queue's is 4 MiB) starts on a huge
// page and is advised to use them ("hg" in its mapping's flags), so that a
// NIC needs one translation per 2 MiB; smaller regions stay page-aligned.
TEST(AlignedBytes, LargeRegionsAreHugePageAlignedAndAdvised)
{
    const AlignedBytes big = aligned_bytes(4 * kHugePageBytes, "a big region");
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.get()) % kHugePageBytes, 0u);
    EXPECT_NE(vm_flags_of(big.get()).find(" hg"), std::string::npos) << vm_flags_of(big.get());
    EXPECT_EQ(big.get()[4 * kHugePageBytes - 1], std::byte{0});
    const AlignedBytes small = aligned_bytes(3 * kPage, "a small region");
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.get()) % kPage, 0u);
}

TEST_F(MemoryMapTest, FindsTheRegistrationCoveringARangeAndItsKeys)
{
    const int before = fake_rdma::live_mrs();
    ASSERT_EQ(0, map.add(at(kPage), 8 * kPage));
    EXPECT_EQ(before + 1, fake_rdma::live_mrs());

    const Registration* r = map.find(at(2 * kPage + 100), 3 * kPage);
    ASSERT_NE(nullptr, r);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(at(kPage)), r->start);
    EXPECT_EQ(8 * kPage, r->len);
    EXPECT_NE(r->lkey, r->rkey);
    EXPECT_EQ(r, map.find(at(kPage), 8 * kPage));

    EXPECT_EQ(nullptr, map.find(at(kPage - 1), 2)) << "begins before it";
    EXPECT_EQ(nullptr, map.find(at(8 * kPage), kPage + 1)) << "ends after it";
    EXPECT_EQ(nullptr, map.find(at(9 * kPage), 1)) << "just after it";
    EXPECT_EQ(nullptr, map.find(at(20 * kPage), kPage)) << "memory never registered";
}

TEST_F(MemoryMapTest, ASecondRegistrationOfTheSameBufferIsAnotherUserOfOneRegion)
{
    const int before = fake_rdma::live_mrs();
    ASSERT_EQ(0, map.add(at(0), 4 * kPage));
    ASSERT_EQ(0, map.add(at(0), 4 * kPage));
    EXPECT_EQ(before + 1, fake_rdma::live_mrs());
    EXPECT_EQ(1u, map.size());

    map.remove(at(0));
    EXPECT_NE(nullptr, map.find(at(0), kPage)) << "the other user still has it";
    map.remove(at(0));
    EXPECT_EQ(nullptr, map.find(at(0), kPage));
    EXPECT_EQ(before, fake_rdma::live_mrs()) << "deregistered after its last user";
    EXPECT_EQ(0u, map.size());
}

TEST_F(MemoryMapTest, TheSameStartWithAnotherLengthIsRefused)
{
    ASSERT_EQ(0, map.add(at(0), 4 * kPage));
    EXPECT_EQ(EEXIST, map.add(at(0), 2 * kPage));
    EXPECT_EQ(EINVAL, map.add(at(0), 0));
    EXPECT_EQ(EINVAL, map.add(reinterpret_cast<void*>(std::uintptr_t{1} << 48), kPage));
}

TEST_F(MemoryMapTest, RegistrationsThatShareAPageAreEachFoundThere)
{
    // a ends and b begins inside the second page; c covers both.
    const std::size_t split = kPage + 1000;
    ASSERT_EQ(0, map.add(at(0), split));
    ASSERT_EQ(0, map.add(at(split), 3 * kPage));
    const Registration* a = map.find(at(0), split);
    const Registration* b = map.find(at(split), 100);
    ASSERT_NE(nullptr, a);
    ASSERT_NE(nullptr, b);
    EXPECT_NE(a, b);
    EXPECT_EQ(a, map.find(at(split - 10), 10));
    EXPECT_EQ(nullptr, map.find(at(split - 10), 20)) << "across both: neither covers it";

    map.remove(at(0));
    EXPECT_EQ(nullptr, map.find(at(0), 10)) << "a's own page went with it";
    EXPECT_EQ(b, map.find(at(split), 100)) << "b keeps the shared page";
    EXPECT_EQ(b, map.find(at(split + 3 * kPage - 1), 1));

    ASSERT_EQ(0, map.add(at(0), 8 * kPage));
    const Registration* c = map.find(at(0), 8 * kPage);
    ASSERT_NE(nullptr, c);
    EXPECT_EQ(b, map.find(at(split), 100)) << "the first registration of a page is found first";
    map.remove(at(split));
    EXPECT_EQ(c, map.find(at(split), 100)) << "c takes b's pages";
}

TEST_F(MemoryMapTest, RegistrationsAcrossAGibibyteBoundaryAreFound)
{
    // Two tables of the map, without touching 1 GiB of memory: the fake
    // registers any range.
    const std::uintptr_t gib = std::uintptr_t{1} << 30;
    auto* p = reinterpret_cast<std::byte*>(64 * gib - 2 * kPage);
    ASSERT_EQ(0, map.add(p, 4 * kPage));
    EXPECT_NE(nullptr, map.find(p + kPage, 2 * kPage));
    EXPECT_NE(nullptr, map.find(p + 3 * kPage, kPage));
    map.remove(p);
    EXPECT_EQ(nullptr, map.find(p + 3 * kPage, kPage));
}

TEST_F(MemoryMapTest, FindWithoutALockBesideAnotherThreadsChanges)
{
    // y holds page 1 first; the reader's range there is also mine's. y
    // comes and goes: the page moves to mine, and y's next registrations
    // share it, each time another registration than the reader's.
    ASSERT_EQ(0, map.add(at(kPage), kPage));
    ASSERT_EQ(0, map.add(at(0), 8 * kPage));
    std::atomic<bool> stop{false};
    std::atomic<long> finds{0}, wrong{0};
    std::thread reader([&] {
        while (!stop.load(std::memory_order_relaxed)) {
            const Registration* r = map.find(at(kPage + 10), 10);
            if (!r || !r->covers(at(kPage + 10), 10))
                wrong.fetch_add(1, std::memory_order_relaxed);
            finds.fetch_add(1, std::memory_order_relaxed);
        }
    });
    for (int i = 0; i < 2000; ++i) {
        map.remove(at(kPage));
        ASSERT_EQ(0, map.add(at(kPage), kPage));
    }
    while (finds.load() < 1000)
        std::this_thread::yield();
    stop = true;
    reader.join();
    EXPECT_EQ(0, wrong.load()) << "of " << finds.load() << " finds";
}

}  // namespace
}  // namespace rblk::bypass
