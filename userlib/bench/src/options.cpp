#include "rblk/bench/options.hpp"

#include "rblk/bench/units.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

namespace rblk::bench {
namespace {

constexpr std::array<std::pair<std::string_view, Mode>, 5> kModes{{
    {"read", Mode::read},
    {"write", Mode::write},
    {"randread", Mode::randread},
    {"randwrite", Mode::randwrite},
    {"randrw", Mode::randrw},
}};
constexpr std::string_view kModeList = "read, write, randread, randwrite, randrw";

[[noreturn]] void fail(const std::string& message) { throw OptionError(message); }

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

Mode parse_mode(const std::optional<std::string>& rw)
{
    if (!rw)
        fail("--rw is required (" + std::string(kModeList) + ")");
    for (auto [name, mode] : kModes)
        if (*rw == name)
            return mode;
    fail("--rw: unknown mode " + quoted(*rw) + " (" + std::string(kModeList) + ")");
}

std::uint32_t parse_count(const std::optional<std::string>& text, std::string_view name,
                          std::uint32_t fallback, std::uint32_t lo, std::uint32_t hi)
{
    if (!text)
        return fallback;
    auto v = parse_uint(*text);
    if (!v || *v < lo || *v > hi)
        fail("--" + std::string(name) + " must be an integer from " + std::to_string(lo) +
             " to " + std::to_string(hi) + ", got " + quoted(*text));
    return static_cast<std::uint32_t>(*v);
}

std::optional<std::uint64_t> parse_bytes(const std::optional<std::string>& text,
                                         std::string_view name)
{
    if (!text)
        return std::nullopt;
    return parse_size_option("--" + std::string(name), *text);
}

std::optional<std::chrono::nanoseconds> parse_time(const std::optional<std::string>& text,
                                                   std::string_view name)
{
    if (!text)
        return std::nullopt;
    auto v = parse_duration(*text);
    if (!v)
        fail("--" + std::string(name) + ": " + quoted(*text) +
             " is not a duration (e.g. 10, 10s, 500ms, 2m)");
    return v;
}

std::uint32_t parse_block_size(const std::optional<std::string>& text)
{
    auto bs = parse_bytes(text, "bs").value_or(4096);
    if (bs < kMinBlockSize || bs % kMinBlockSize != 0)
        fail("--bs must be a multiple of 512 bytes, got " + std::to_string(bs));
    if (bs > kMaxBlockSize)
        fail("--bs must be at most " + format_size(kMaxBlockSize) + ", got " + format_size(bs));
    return static_cast<std::uint32_t>(bs);
}

// Sizes of the range and of the I/O budget are whole blocks, so every offset
// stays bs-aligned and inside the range.
void check_blocks(std::optional<std::uint64_t> bytes, std::string_view name, std::uint32_t bs)
{
    if (!bytes)
        return;
    if (*bytes < bs)
        fail("--" + std::string(name) + " must be at least --bs (" + format_size(bs) + ")");
    if (*bytes % bs != 0)
        fail("--" + std::string(name) + " must be a multiple of --bs (" + format_size(bs) +
             "), got " + std::to_string(*bytes));
}

std::vector<unsigned> parse_cpus(const std::optional<std::string>& text)
{
    if (!text)
        return {};
    auto ranges = parse_cpu_list(*text);
    if (!ranges)
        fail("--cpus: " + quoted(*text) + " is not a CPU list (e.g. 0-3,6)");
    std::vector<unsigned> cpus;
    for (auto r : *ranges) {
        if (r.last > kMaxCpu)
            fail("--cpus: CPU " + std::to_string(r.last) + " is out of range (0 to " +
                 std::to_string(kMaxCpu) + ")");
        for (auto cpu = r.first; cpu <= r.last; ++cpu)
            cpus.push_back(static_cast<unsigned>(cpu));
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

}  // namespace

std::string_view mode_name(Mode m)
{
    for (auto [name, mode] : kModes)
        if (mode == m)
            return name;
    return "?";
}

std::uint64_t parse_size_option(std::string_view option, std::string_view text)
{
    bool too_large = false;
    if (auto v = parse_size(text, &too_large))
        return *v;
    const std::string largest = std::to_string(std::numeric_limits<std::uint64_t>::max());
    fail(std::string(option) + ": " + quoted(text) +
         (too_large ? " is too large (at most " + largest + " bytes)"
                    : " is not a size (e.g. 4k, 64m, 1g)"));
}

BenchOptions parse_options(const BenchArgs& args)
{
    BenchOptions o;
    if (!args.filename || args.filename->empty())
        fail("--filename is required");
    o.filename = *args.filename;
    o.mode = parse_mode(args.rw);
    o.block_size = parse_block_size(args.bs);
    o.iodepth = parse_count(args.iodepth, "iodepth", 1, 1, kMaxIodepth);
    o.numjobs = parse_count(args.numjobs, "numjobs", 1, 1, kMaxNumjobs);
    o.batch_complete = parse_count(args.batch_complete, "batch-complete", 1, 1, o.iodepth);

    o.runtime = parse_time(args.runtime, "runtime");
    if (o.runtime && o.runtime->count() == 0)
        fail("--runtime must be greater than 0");
    o.ramp = parse_time(args.ramp, "ramp").value_or(std::chrono::nanoseconds{0});

    o.size = parse_bytes(args.size, "size");
    check_blocks(o.size, "size", o.block_size);
    o.io_limit = parse_bytes(args.io_limit, "io-limit");
    check_blocks(o.io_limit, "io-limit", o.block_size);
    // Whole blocks from the start of the range keep every I/O bs-aligned,
    // which O_DIRECT and an NVMe LBA both need.
    o.offset = parse_bytes(args.offset, "offset").value_or(0);
    if (o.offset % o.block_size != 0)
        fail("--offset must be a multiple of --bs (" + format_size(o.block_size) + "), got " +
             std::to_string(o.offset));

    if (args.rwmixread) {
        if (o.mode != Mode::randrw)
            fail("--rwmixread only applies to --rw randrw");
        o.rwmixread = parse_count(args.rwmixread, "rwmixread", 50, 0, 100);
    }
    o.cpus = parse_cpus(args.cpus);

    o.direct = args.direct;
    o.verify = args.verify;
    o.sqpoll = args.sqpoll;
    o.hipri = args.hipri;
    o.json = args.json;
    return o;
}

}  // namespace rblk::bench
