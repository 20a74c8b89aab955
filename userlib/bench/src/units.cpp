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

std::optional<std::uint64_t> parse_size(std::string_view text, bool* too_large)
{
    if (too_large)
        *too_large = false;
    auto [digits, rest] = split_number(text);
    if (digits.empty())
        return std::nullopt;
    // The unit before the number's value, so that a well-formed size beyond
    // 2^64 - 1 is told apart from text that is no size at all.
    std::string unit = lower(rest);
    std::size_t power = 0;
    std::uint64_t base = 1024;
    if (!unit.empty() && unit != "b") {
        static constexpr std::string_view prefixes = "kmgtp";
        auto pos = prefixes.find(unit[0]);
        if (pos == std::string_view::npos)
            return std::nullopt;
        std::string_view tail = std::string_view(unit).substr(1);
        if (tail.empty() || tail == "b")
            base = 1024;  // fio's compatibility mode: SI prefix = power of two
        else if (tail == "i" || tail == "ib")
            base = 1000;  // ... and IEC prefix = power of ten
        else
            return std::nullopt;
        power = pos + 1;
    }
    auto result = parse_uint(digits);  // nullopt here: too many digits
    for (std::size_t i = 0; result && i < power; ++i)
        if (!multiply(*result, base, *result))
            result.reset();
    if (!result && too_large)
        *too_large = true;
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
