#include "rblk/bench/units.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <limits>

namespace rblk::bench {
namespace {

// Splits "123abc" into its leading digits and the rest.
std::pair<std::string_view, std::string_view> split_number(std::string_view text)
{
    std::size_t n = 0;
    while (n < text.size() && std::isdigit(static_cast<unsigned char>(text[n])))
        ++n;
    return {text.substr(0, n), text.substr(n)};
}

bool multiply(std::uint64_t a, std::uint64_t b, std::uint64_t& out)
{
    return !__builtin_mul_overflow(a, b, &out);
}

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

}  // namespace

std::optional<std::uint64_t> parse_uint(std::string_view text)
{
    auto [digits, rest] = split_number(text);
    if (digits.empty() || !rest.empty())
        return std::nullopt;
    std::uint64_t value = 0;
    for (char c : digits)
        if (!multiply(value, 10, value) ||
            __builtin_add_overflow(value, static_cast<std::uint64_t>(c - '0'), &value))
            return std::nullopt;
    return value;
}

std::optional<std::uint64_t> parse_size(std::string_view text)
{
    auto [digits, rest] = split_number(text);
    auto value = parse_uint(digits);
    if (!value)
        return std::nullopt;
    std::string unit = lower(rest);
    if (unit.empty() || unit == "b")
        return value;
    static constexpr std::string_view prefixes = "kmgtp";
    auto pos = prefixes.find(unit[0]);
    if (pos == std::string_view::npos)
        return std::nullopt;
    std::string_view tail = std::string_view(unit).substr(1);
    std::uint64_t base;
    if (tail.empty() || tail == "b")
        base = 1024;  // fio's compatibility mode: SI prefix = power of two
    else if (tail == "i" || tail == "ib")
        base = 1000;  // ... and IEC prefix = power of ten
    else
        return std::nullopt;
    std::uint64_t result = *value;
    for (std::size_t i = 0; i <= pos; ++i)
        if (!multiply(result, base, result))
            return std::nullopt;
    return result;
}

std::optional<std::chrono::nanoseconds> parse_duration(std::string_view text)
{
    auto [digits, rest] = split_number(text);
    auto value = parse_uint(digits);
    if (!value)
        return std::nullopt;
    std::string unit = lower(rest);
    std::uint64_t scale;
    if (unit.empty() || unit == "s")
        scale = 1'000'000'000ULL;
    else if (unit == "ms")
        scale = 1'000'000ULL;
    else if (unit == "us")
        scale = 1'000ULL;
    else if (unit == "m")
        scale = 60'000'000'000ULL;
    else if (unit == "h")
        scale = 3'600'000'000'000ULL;
    else
        return std::nullopt;
    std::uint64_t ns;
    if (!multiply(*value, scale, ns) ||
        ns > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return std::nullopt;
    return std::chrono::nanoseconds(static_cast<std::int64_t>(ns));
}

std::optional<std::vector<CpuRange>> parse_cpu_list(std::string_view text)
{
    std::vector<CpuRange> ranges;
    while (true) {
        auto comma = text.find(',');
        std::string_view item = text.substr(0, comma);
        auto dash = item.find('-');
        auto first = parse_uint(item.substr(0, dash));
        auto last = dash == std::string_view::npos ? first : parse_uint(item.substr(dash + 1));
        if (!first || !last || *last < *first)
            return std::nullopt;
        ranges.push_back({*first, *last});
        if (comma == std::string_view::npos)
            return ranges;
        text.remove_prefix(comma + 1);
    }
}

std::string format_size(std::uint64_t bytes)
{
    static constexpr const char* units[] = {"", "k", "m", "g", "t", "p"};
    std::size_t i = 0;
    while (i + 1 < std::size(units) && bytes != 0 && bytes % 1024 == 0) {
        bytes /= 1024;
        ++i;
    }
    return std::to_string(bytes) + units[i];
}

}  // namespace rblk::bench
