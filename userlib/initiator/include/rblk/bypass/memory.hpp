// Memory the target may read or write: registered with the protection
// domain once, never per I/O. A BufferPool is one allocation registered
// at queue setup and cut into equal chunks (command data staged there, the
// admin queue's Identify and Connect data); a RegistrationCache holds the
// registrations of buffers the caller brings (IoQueue::register_buffer()),
// found again by address on every submission, so zero-copy I/O costs one
// ibv_reg_mr per buffer, not per command.
//
// The cache is explicit: the caller registers and unregisters. A cache that
// registered on first use and guessed lifetimes could keep pages pinned
// that the caller freed and malloc reused (the target would then move data
// to or from the old pages: wrong data), which is what SPDK and UCX hook
// munmap() for. Both live per queue, as the queue itself, one per thread,
// so neither locks.
//
// Trust: the keys stay valid while the queue lives (no invalidation per
// command), so a target that wrote after its response could touch a later
// command's buffer, though never memory outside what was registered:
// narrower than nvme-rdma's register_always=N (all of memory), wider than
// rblk.ko's key per command, invalidated before the command ends.
#pragma once

#include "rblk/bypass/verbs.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

namespace rblk::bypass {

// Page-aligned, zeroed memory of `bytes` (throws Error naming `what`).
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
    bool contains(const void* p, std::size_t len) const;
    RemoteRef ref(const void* p) const;
    // The chunks' local key, for a SEND that carries one as its data.
    std::uint32_t lkey() const;

private:
    std::size_t chunk_;
    AlignedBytes mem_;
    std::size_t bytes_;
    MemoryRegion mr_;
    std::vector<std::byte*> free_;
};

class RegistrationCache {
public:
    explicit RegistrationCache(ibv_pd* pd) : pd_(pd) {}

    // Registers [p, p + len) unless a registration already covers it;
    // 0 or an errno.
    int add(const void* p, std::size_t len);
    // Drops the registration that starts at p (as add() was given it).
    void remove(const void* p);
    // The registration covering [p, p + len), if any.
    const ibv_mr* find(const void* p, std::size_t len) const;
    std::size_t size() const { return regs_.size(); }

private:
    ibv_pd* pd_;
    std::map<std::uintptr_t, MemoryRegion> regs_;  // by start address
};

}  // namespace rblk::bypass
