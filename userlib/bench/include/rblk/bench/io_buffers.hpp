// One page-aligned mapping cut into iodepth buffers of bs bytes: aligned for
// O_DIRECT, and one iovec each for io_uring_register_buffers.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace rblk::bench {

class IoBuffers {
public:
    IoBuffers(std::uint32_t count, std::uint32_t size);  // throws std::system_error
    ~IoBuffers();
    IoBuffers(const IoBuffers&) = delete;
    IoBuffers& operator=(const IoBuffers&) = delete;

    std::span<std::byte> operator[](std::size_t i) const
    {
        return {static_cast<std::byte*>(iovecs_[i].iov_base), iovecs_[i].iov_len};
    }
    std::span<const iovec> iovecs() const { return iovecs_; }

private:
    void* base_ = nullptr;
    std::size_t length_ = 0;
    std::vector<iovec> iovecs_;
};

}  // namespace rblk::bench
