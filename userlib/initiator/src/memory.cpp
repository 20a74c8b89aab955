// Registered memory; see memory.hpp.
#include "rblk/bypass/memory.hpp"

#include "rblk/bypass/status.hpp"

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
    void* p = nullptr;
    if (bytes == 0 || ::posix_memalign(&p, page_size(), bytes) != 0)
        throw Error(std::string("cannot allocate ") + what);
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

bool BufferPool::contains(const void* p, std::size_t len) const
{
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    const auto base = reinterpret_cast<std::uintptr_t>(mem_.get());
    return a >= base && len <= bytes_ && a - base <= bytes_ - len;
}

RemoteRef BufferPool::ref(const void* p) const
{
    return {reinterpret_cast<std::uint64_t>(p), mr_->rkey};
}

std::uint32_t BufferPool::lkey() const { return mr_->lkey; }

const ibv_mr* RegistrationCache::find(const void* p, std::size_t len) const
{
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    auto it = regs_.upper_bound(a);
    if (it == regs_.begin())
        return nullptr;
    --it;
    const ibv_mr* mr = it->second.get();
    const auto start = reinterpret_cast<std::uintptr_t>(mr->addr);
    return a - start <= mr->length && len <= mr->length - (a - start) ? mr : nullptr;
}

int RegistrationCache::add(const void* p, std::size_t len)
{
    if (len == 0)
        return EINVAL;
    if (find(p, len))
        return 0;
    ibv_mr* mr = ibv_reg_mr(pd_, const_cast<void*>(p), len, kRemoteAccess);
    if (!mr)
        return errno ? errno : ENOMEM;
    regs_[reinterpret_cast<std::uintptr_t>(p)] = MemoryRegion(mr);
    return 0;
}

void RegistrationCache::remove(const void* p) { regs_.erase(reinterpret_cast<std::uintptr_t>(p)); }

}  // namespace rblk::bypass
