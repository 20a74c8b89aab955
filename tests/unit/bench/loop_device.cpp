#include "loop_device.hpp"

#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rblk::bench::testing {

LoopDevice::LoopDevice(const std::string& backing, std::uint64_t bytes, std::uint32_t logical_block)
{
    UniqueFd control(::open("/dev/loop-control", O_RDWR | O_CLOEXEC));
    UniqueFd file(::open(backing.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
    if (!control || !file || ::ftruncate(file.get(), static_cast<off_t>(bytes)) != 0) {
        why_not_ = std::string("no loop devices here: ") + std::strerror(errno);
        return;
    }
    const int n = ::ioctl(control.get(), LOOP_CTL_GET_FREE);
    if (n < 0) {
        why_not_ = std::string("LOOP_CTL_GET_FREE: ") + std::strerror(errno);
        return;
    }
    path_ = "/dev/loop" + std::to_string(n);
    UniqueFd dev(::open(path_.c_str(), O_RDWR | O_CLOEXEC));
    if (!dev || ::ioctl(dev.get(), LOOP_SET_FD, file.get()) != 0) {
        why_not_ = path_ + ": " + std::strerror(errno);
        return;
    }
    device_ = std::move(dev);
    if (::ioctl(device_.get(), LOOP_SET_BLOCK_SIZE, static_cast<unsigned long>(logical_block)) != 0)
        why_not_ = "LOOP_SET_BLOCK_SIZE: " + std::string(std::strerror(errno));
    if (!why_not_.empty()) {
        ::ioctl(device_.get(), LOOP_CLR_FD, 0);
        device_.reset();
    }
}

LoopDevice::~LoopDevice()
{
    if (device_)
        ::ioctl(device_.get(), LOOP_CLR_FD, 0);
}

}  // namespace rblk::bench::testing
