// Memory the target may read or write: registered with the protection
// domain once, never per I/O. A BufferPool is one allocation registered
// at queue setup and cut into equal chunks (command data staged there, the
// admin queue's Identify and Connect data); a MemoryMap holds the
// registrations of buffers the caller brings (IoQueue::register_buffer()),
// one map per protection domain that every queue of the controller shares,
// so a buffer registered once serves every queue, and each submission finds
// its registration in two loads (a page table, as SPDK's mem map) rather
// than by searching: zero-copy I/O costs one ibv_reg_mr per buffer, not per
// command, and a constant lookup per command.
//
// The map is explicit: the caller registers and unregisters. A map that
// registered on first use and guessed lifetimes could keep pages pinned
// that the caller freed and malloc reused (the target would then move data
// to or from the old pages: wrong data), which is what SPDK and UCX hook
// munmap() for. The pool lives per queue, as the queue itself, one per
// thread, and never locks; the map locks only to change.
//
// Trust: the keys stay valid while the registration lives (no invalidation
// per command), so a target that wrote after its response could touch a
// later command's buffer, though never memory outside what was registered:
// narrower than nvme-rdma's register_always=N (all of memory), wider than
// rblk.ko's key per command, invalidated before the command ends.
#pragma once

#include "rblk/bypass/verbs.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace rblk::bypass {

// Page-aligned, zeroed memory of `bytes` (throws Error naming `what`); from
// kHugePageBytes on, aligned to a huge page and advised to use them (THP).
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
struct FreeDelete {
    void operator()(std::byte* p) const { std::free(p); }
};
using AlignedBytes = std::unique_ptr<std::byte, FreeDelete>;
AlignedBytes aligned_bytes(std::size_t bytes, const char* what);

// Where a command's data lives, as a keyed SGL needs it.
struct RemoteRef {
    std::uint64_t addr = 0;
    std::uint32_t rkey = 0;
};

class BufferPool {
public:
    // `count` chunks of `chunk` bytes (page aligned), registered for local
    // and remote read/write. Throws Error.
    BufferPool(ibv_pd* pd, std::size_t chunk, std::size_t count);

    std::size_t chunk_size() const { return chunk_; }
    std::size_t free_count() const { return free_.size(); }
    // A free chunk, nullptr when none is left.
    std::byte* get();
    void put(std::byte* chunk);
    // Inline, as every submission asks.
    bool contains(const void* p, std::size_t len) const
    {
        const auto a = reinterpret_cast<std::uintptr_t>(p);
        const auto base = reinterpret_cast<std::uintptr_t>(mem_.get());
        return a >= base && len <= bytes_ && a - base <= bytes_ - len;
    }
    RemoteRef ref(const void* p) const { return {reinterpret_cast<std::uint64_t>(p), mr_->rkey}; }
    // The chunks' local key, for a SEND that carries one as its data.
    std::uint32_t lkey() const { return mr_->lkey; }

private:
    std::size_t chunk_;
    AlignedBytes mem_;
    std::size_t bytes_;
    MemoryRegion mr_;
    std::vector<std::byte*> free_;
};

// One registration of the map: immutable once published, and kept until
// the map goes (see MemoryMap::remove()).
struct Registration {
    std::uintptr_t start = 0;
    std::size_t len = 0;
    std::uint32_t lkey = 0;
    std::uint32_t rkey = 0;

    bool covers(const void* p, std::size_t n) const
    {
        const auto a = reinterpret_cast<std::uintptr_t>(p);
        return a - start <= len && n <= len - (a - start);
    }
};

class MemoryMap {
public:
    explicit MemoryMap(ibv_pd* pd);
    ~MemoryMap();
    MemoryMap(const MemoryMap&) = delete;
    MemoryMap& operator=(const MemoryMap&) = delete;

    // Registers [p, p + len); registering the same start again counts
    // another user, whom remove() then drops. 0 or an errno.
    int add(const void* p, std::size_t len);
    // Drops a user of the registration that starts at p (as add() was
    // given it), deregistering it after the last. No I/O may be using
    // that memory: the target loses access to it.
    void remove(const void* p);
    // The registration covering [p, p + len), if any. Any thread, without
    // a lock, beside add() and remove() of other memory.
    const Registration* find(const void* p, std::size_t len) const
    {
        const auto a = reinterpret_cast<std::uintptr_t>(p);
        if (a >> kAddrBits)
            return nullptr;
        Table* t = std::atomic_ref(top_[a >> kTableShift]).load(std::memory_order_acquire);
        if (!t)
            return nullptr;
        // Pairs with the release stores of publish() and repoint(): the
        // record's fields are written before its address.
        const Registration* r = std::atomic_ref(t->page[page_index(a)]).load(std::memory_order_acquire);
        if (!r || r->covers(p, len)) [[likely]]
            return r;
        // The page holds more than one registration's memory.
        return find_slow(p, len);
    }
    // Registrations in use (distinct starts).
    std::size_t size() const;

private:
    // 4 KiB pages of a 48-bit address space: a top level of 2^18 tables
    // of 1 GiB, each 2^18 entries, reserved and faulted in as used (2 MiB
    // of table per GiB registered).
    static constexpr unsigned kAddrBits = 48;
    static constexpr unsigned kPageShift = 12;
    static constexpr unsigned kTableShift = 30;
    static constexpr std::uintptr_t kTableMask = (std::uintptr_t{1} << (kTableShift - kPageShift)) - 1;
    static constexpr std::size_t kTables = std::size_t{1} << (kAddrBits - kTableShift);
    static constexpr std::uintptr_t kPage = std::uintptr_t{1} << kPageShift;
    // The entry of address a's page in its table.
    static std::size_t page_index(std::uintptr_t a) { return (a >> kPageShift) & kTableMask; }
    // Plain pointers in mmap()ed memory, read and written through
    // std::atomic_ref: an entry is null exactly when no registration
    // covers any byte of its page.
    struct Table {
        const Registration* page[kTableMask + 1];
    };
    struct Entry {
        Registration* reg;
        MemoryRegion mr;
        unsigned users;
    };

    const Registration* find_slow(const void* p, std::size_t len) const;
    // The pages r's memory touches: [first, end) page addresses.
    static std::uintptr_t first_page(const Registration& r) { return r.start & ~(kPage - 1); }
    static std::uintptr_t end_page(const Registration& r) { return (r.start + r.len + kPage - 1) & ~(kPage - 1); }
    // Under mu_: points the empty pages of `r` at it (0 or ENOMEM), and
    // the pages of `gone` at another registration covering them, or null.
    int publish(const Registration& r);
    void repoint(const Registration& gone);

    ibv_pd* pd_;
    Table** top_;            // mmap()ed, kTables entries
    mutable std::mutex mu_;  // below, and every change of the tables
    std::map<std::uintptr_t, Entry> regs_;  // by start address
    std::deque<Registration> records_;      // never freed before the map: a
                                            // lock-free find() may hold one
    std::vector<Table*> tables_;            // to unmap
};

}  // namespace rblk::bypass
