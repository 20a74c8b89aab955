// A loop block device over a temporary file, for testing the block device
// path on the host; detached when destroyed. Needs root and /dev/loop-control:
// `available()` is false otherwise and tests skip.
#pragma once

#include <rblk/bench/unique_fd.hpp>

#include <cstdint>
#include <string>

namespace rblk::bench::testing {

class LoopDevice {
public:
    // `backing`: a file to create at `bytes`; `logical_block`: the device's.
    LoopDevice(const std::string& backing, std::uint64_t bytes, std::uint32_t logical_block = 512);
    ~LoopDevice();
    LoopDevice(const LoopDevice&) = delete;
    LoopDevice& operator=(const LoopDevice&) = delete;

    bool available() const { return static_cast<bool>(device_); }
    const std::string& path() const { return path_; }
    const std::string& why_not() const { return why_not_; }

private:
    UniqueFd device_;
    std::string path_;
    std::string why_not_;
};

}  // namespace rblk::bench::testing
