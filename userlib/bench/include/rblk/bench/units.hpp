// Parsers for the bench's textual option values, with fio's conventions so a
// job line can be copied between the two tools.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rblk::bench {

// Bytes from "4096", "4k", "1m", "2G", "1t" (k/m/g/t/p, any case, optional
// trailing "b") = powers of 1024, and "4KiB"... = powers of 1000: fio's
// default kb_base=1024 "compatibility mode", so 4k is 4096 in both tools.
// nullopt on anything else, including overflow, which sets *too_large
// (false otherwise) so a message can tell the two apart. The one parser of
// byte counts for every rblkctl option that takes one (parse_size_option()
// in options.hpp gives its message).
std::optional<std::uint64_t> parse_size(std::string_view text, bool* too_large = nullptr);

// A duration as fio takes it: plain number = seconds, or with a unit suffix
// us, ms, s, m, h. nullopt on anything else, including overflow.
std::optional<std::chrono::nanoseconds> parse_duration(std::string_view text);

// A plain non-negative decimal integer; nullopt otherwise.
std::optional<std::uint64_t> parse_uint(std::string_view text);

// An inclusive range of CPU numbers.
struct CpuRange {
    std::uint64_t first;
    std::uint64_t last;
};

// A CPU list like taskset's/fio's cpus_allowed: "0-3,6,8-9", as ranges (not
// expanded, so a huge number cannot make it loop). nullopt when malformed:
// empty item, reversed range, non-digits.
std::optional<std::vector<CpuRange>> parse_cpu_list(std::string_view text);

// "4k", "1m", "512" — the shortest fio-style spelling of a byte count.
std::string format_size(std::uint64_t bytes);

}  // namespace rblk::bench
