// The thing under test: a block device (always O_DIRECT) or a regular file
// (created and sized to --offset + --size when absent; O_DIRECT with --direct).
#pragma once

#include "rblk/bench/options.hpp"
#include "rblk/bench/unique_fd.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace rblk::bench {

struct Target {
    UniqueFd fd;
    std::string path;
    bool block_device = false;
    bool direct = false;
    bool created = false;              // this run created the file
    std::uint64_t size = 0;            // bytes of the range used (bs multiple), from --offset
    std::uint32_t logical_block = 512; // device's logical block size
    std::optional<bool> io_poll;       // device's queue/io_poll, when it has one
    std::string poll_device;           // for a file: "M:m" of the device it lives on
};

// Opens (or creates) the target for `o` and checks what only the target can
// tell: its size vs --offset, --size and --bs, poll queues for --hipri.
// Throws OptionError for what the user can fix, std::system_error for the rest.
Target open_target(const BenchOptions& o);

// "/sys/dev/block/M:m/queue/io_poll" (or the whole disk's for a partition),
// nullopt when unreadable. Exposed so the message path is testable.
std::optional<bool> read_io_poll(unsigned major, unsigned minor);

// The sentence printed when polled I/O is impossible: `path` is the target,
// `device` the block device ("M:m") it lives on when it is a file, else empty.
std::string no_poll_queues_message(const std::string& path, const std::string& device = {});

}  // namespace rblk::bench
