// One io_uring per job, torn down with it. Set up with the cheapest
// completion signalling the kernel offers (single issuer, deferred task work),
// falling back on older kernels; SQPOLL and IOPOLL as the user asks.
#pragma once

#include <liburing.h>

#include <cstdint>
#include <span>
#include <sys/uio.h>

namespace rblk::bench {

struct RingConfig {
    std::uint32_t entries;
    bool sqpoll = false;
    bool iopoll = false;
};

class Ring {
public:
    explicit Ring(const RingConfig& config);  // throws std::system_error
    ~Ring();
    Ring(const Ring&) = delete;
    Ring& operator=(const Ring&) = delete;

    // Fixed file 0 and fixed buffers 0..n-1 (READ_FIXED/WRITE_FIXED): the
    // kernel skips the per-I/O fd lookup and page pinning.
    void register_file(int fd);
    void register_buffers(std::span<const iovec> buffers);

    io_uring* get() { return &ring_; }

private:
    io_uring ring_{};
};

}  // namespace rblk::bench
