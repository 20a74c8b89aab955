// What a bench run does, and the validation that turns the user's strings
// into it. Every rule has its own one-line message (tests pin them), so the
// CLI can print "rblkctl: <message>" and nothing else.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rblk::bench {

enum class Mode { read, write, randread, randwrite, randrw };

constexpr bool mode_reads(Mode m) { return m != Mode::write && m != Mode::randwrite; }
constexpr bool mode_writes(Mode m) { return m != Mode::read && m != Mode::randread; }
constexpr bool mode_random(Mode m)
{
    return m == Mode::randread || m == Mode::randwrite || m == Mode::randrw;
}
std::string_view mode_name(Mode m);

// Bad user input; what() is the whole message.
class OptionError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// The options as typed; an empty optional means "not given".
struct BenchArgs {
    std::optional<std::string> filename, rw, bs, iodepth, numjobs, runtime, size, offset,
        io_limit, ramp, cpus, rwmixread, batch_complete;
    bool direct = false, verify = false, sqpoll = false, hipri = false, json = false;
};

// Limits the rules enforce (exposed for messages and tests).
inline constexpr std::uint32_t kMinBlockSize = 512;        // O_DIRECT's smallest unit
inline constexpr std::uint32_t kMaxBlockSize = 64u << 20;  // keeps iodepth*bs sane
inline constexpr std::uint32_t kMaxIodepth = 4096;         // io_uring allows 32768 SQEs
inline constexpr std::uint32_t kMaxNumjobs = 256;
inline constexpr unsigned kMaxCpu = 1023;                  // CPU_SETSIZE - 1

struct BenchOptions {
    std::string filename;
    Mode mode = Mode::read;
    std::uint32_t block_size = 4096;
    std::uint32_t iodepth = 1;
    // Completions to wait for before refilling (fio's iodepth_batch_complete_min):
    // 1 measures each I/O's latency as it ends; more saves wake-ups when the
    // CPU is the limit, at the cost of reaping some completions late.
    std::uint32_t batch_complete = 1;
    std::uint32_t numjobs = 1;
    std::optional<std::chrono::nanoseconds> runtime;  // none: stop on io_limit
    std::optional<std::uint64_t> size;       // range used; none: the file's or device's size past offset
    std::uint64_t offset = 0;                // first byte of the range, a multiple of block_size
    std::optional<std::uint64_t> io_limit;   // bytes per job; none: size (one pass) unless runtime
    std::chrono::nanoseconds ramp{0};        // runs before measuring, not counted
    std::vector<unsigned> cpus;              // sorted set; job i runs on cpus[i % n]; empty: no pinning
    unsigned rwmixread = 50;                 // percent of reads in randrw
    bool direct = false, verify = false, sqpoll = false, hipri = false, json = false;
};

// Throws OptionError with the first rule broken.
BenchOptions parse_options(const BenchArgs& args);

// The bytes `text` gives for `option` ("--offset"), by parse_size(): every
// rblkctl option that takes a byte count goes through it, so all take the
// same suffixes and refuse a bad value in the same words. Throws
// OptionError "--offset: '200x' is not a size (e.g. 4k, 64m, 1g)", or
// "--offset: '20000000p' is too large (at most 18446744073709551615 bytes)".
std::uint64_t parse_size_option(std::string_view option, std::string_view text);

}  // namespace rblk::bench
