#include "rblk/bench/io_buffers.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <system_error>

namespace rblk::bench {

IoBuffers::IoBuffers(std::uint32_t count, std::uint32_t size)
    : length_(std::size_t{count} * size)
{
    // MAP_POPULATE: fault the pages in now, not during the measured run.
    base_ = ::mmap(nullptr, length_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (base_ == MAP_FAILED)
        throw std::system_error(errno, std::generic_category(), "mmap of I/O buffers");
    iovecs_.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i)
        iovecs_.push_back({static_cast<std::byte*>(base_) + std::size_t{i} * size, size});
}

IoBuffers::~IoBuffers() { ::munmap(base_, length_); }

}  // namespace rblk::bench
