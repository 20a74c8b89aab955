// Registered memory; see memory.hpp.
#include "rblk/bypass/memory.hpp"

#include "rblk/bypass/status.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace rblk::bypass {

namespace {

constexpr int kRemoteAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

}  // namespace

AlignedBytes aligned_bytes(std::size_t bytes, const char* what)
{
    // A region of a huge page or more starts on one and asks for
    // transparent huge pages, before its first touch faults it in: one
    // TLB entry and, on a NIC that maps a region by the largest pages it
    // finds (mlx5), one translation entry per 2 MiB rather than 512.
    // Where THP is off the advice is taken and changes nothing.
    const bool huge = bytes >= kHugePageBytes;
    void* p = nullptr;
    if (bytes == 0 || ::posix_memalign(&p, huge ? kHugePageBytes : page_size(), bytes) != 0)
        throw Error(std::string("cannot allocate ") + what);
    if (huge)
        (void)::madvise(p, bytes - bytes % page_size(), MADV_HUGEPAGE);
    std::memset(p, 0, bytes);
    return AlignedBytes(static_cast<std::byte*>(p));
}

BufferPool::BufferPool(ibv_pd* pd, std::size_t chunk, std::size_t count)
    : chunk_((chunk + page_size() - 1) / page_size() * page_size()),
      mem_(aligned_bytes(chunk_ * count, "the registered buffer pool")),
      bytes_(chunk_ * count)
{
    mr_.reset(ibv_reg_mr(pd, mem_.get(), bytes_, kRemoteAccess));
    if (!mr_)
        throw Error(errno_message("cannot register the buffer pool", errno));
    free_.reserve(count);
    for (std::size_t i = count; i > 0; --i)
        free_.push_back(mem_.get() + (i - 1) * chunk_);
}

std::byte* BufferPool::get()
{
    if (free_.empty())
        return nullptr;
    std::byte* c = free_.back();
    free_.pop_back();
    return c;
}

void BufferPool::put(std::byte* chunk)
{
    if (chunk)
        free_.push_back(chunk);
}

namespace {

// Reserved address space, faulted in as it is touched (zeroed: null
// entries); nullptr when the mapping fails.
void* reserve(std::size_t bytes)
{
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
}

}  // namespace

MemoryMap::MemoryMap(ibv_pd* pd)
    : pd_(pd), top_(static_cast<Table**>(reserve(kTables * sizeof(Table*))))
{
    if (!top_)
        throw Error(errno_message("cannot reserve the memory map", errno));
}

MemoryMap::~MemoryMap()
{
    regs_.clear();  // deregistered before the tables go: nothing finds them
    for (Table* t : tables_)
        ::munmap(t, sizeof(Table));
    ::munmap(top_, kTables * sizeof(Table*));
}

std::size_t MemoryMap::size() const
{
    std::lock_guard lock(mu_);
    return regs_.size();
}

const Registration* MemoryMap::find_slow(const void* p, std::size_t len) const
{
    std::lock_guard lock(mu_);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    // Any registration starting at or below p may cover it: few share a page.
    for (auto it = regs_.upper_bound(a); it != regs_.begin();) {
        --it;
        if (it->second.reg->covers(p, len))
            return it->second.reg;
    }
    return nullptr;
}

int MemoryMap::publish(const Registration& r)
{
    for (std::uintptr_t a = first_page(r), end = end_page(r); a < end; a += kPage) {
        Table*& slot = top_[a >> kTableShift];
        if (!slot) {
            auto* t = static_cast<Table*>(reserve(sizeof(Table)));
            if (!t)
                return ENOMEM;
            tables_.push_back(t);
            // Pairs with find()'s acquire load of the table.
            std::atomic_ref(slot).store(t, std::memory_order_release);
        }
        const Registration*& e = slot->page[page_index(a)];
        // The first registration of a page keeps it; find_slow() finds
        // the others there.
        if (!e)
            std::atomic_ref(e).store(&r, std::memory_order_release);
    }
    return 0;
}

void MemoryMap::repoint(const Registration& gone)
{
    const std::uintptr_t lo = first_page(gone);
    const std::uintptr_t hi = end_page(gone);
    // The registrations left on `gone`'s pages: they may take them.
    std::vector<const Registration*> others;
    for (auto it = regs_.begin(); it != regs_.end() && it->first < hi; ++it)
        if (it->second.reg != &gone && it->first + it->second.reg->len > lo)
            others.push_back(it->second.reg);
    for (std::uintptr_t a = lo; a < hi; a += kPage) {
        Table* t = top_[a >> kTableShift];
        if (!t)
            continue;  // publish() failed before this page
        const Registration*& e = t->page[page_index(a)];
        if (e != &gone)
            continue;
        const Registration* next = nullptr;
        for (const Registration* o : others)
            if (o->start < a + kPage && o->start + o->len > a) {
                next = o;
                break;
            }
        std::atomic_ref(e).store(next, std::memory_order_release);
    }
}

int MemoryMap::add(const void* p, std::size_t len)
{
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    if (len == 0 || a >> kAddrBits || len > (std::uintptr_t{1} << kAddrBits) - a)
        return EINVAL;
    std::lock_guard lock(mu_);
    if (auto it = regs_.find(a); it != regs_.end()) {
        if (it->second.reg->len != len)
            return EEXIST;  // registered with another length
        ++it->second.users;
        return 0;
    }
    MemoryRegion mr(ibv_reg_mr(pd_, const_cast<void*>(p), len, kRemoteAccess));
    if (!mr)
        return errno ? errno : ENOMEM;
    Registration& r = records_.emplace_back(Registration{a, len, mr->lkey, mr->rkey});
    regs_.emplace(a, Entry{&r, std::move(mr), 1});
    if (const int err = publish(r)) {
        repoint(r);
        regs_.erase(a);
        return err;
    }
    return 0;
}

void MemoryMap::remove(const void* p)
{
    std::lock_guard lock(mu_);
    auto it = regs_.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == regs_.end() || --it->second.users > 0)
        return;
    // Unmapped first: a find() from now on cannot return it. Its record
    // stays, for one that loaded it just before.
    repoint(*it->second.reg);
    regs_.erase(it);
}

}  // namespace rblk::bypass
