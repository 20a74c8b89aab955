#include "suggest.hpp"

#include <algorithm>

namespace rblkctl {

std::size_t edit_distance(std::string_view a, std::string_view b)
{
    // d[i][j]: distance of a[0..i) and b[0..j); three rows suffice.
    std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t subst = a[i - 1] == b[j - 1] ? 0 : 1;
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + subst});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                cur[j] = std::min(cur[j], before[j - 2] + 1);
        }
        before.swap(prev);
        prev.swap(cur);
    }
    return prev[b.size()];
}

std::optional<std::string> closest(std::string_view typed,
                                   const std::vector<std::string>& candidates)
{
    constexpr std::size_t kMaxEdits = 2;
    std::optional<std::string> best;
    std::size_t best_distance = kMaxEdits + 1;
    for (const std::string& c : candidates) {
        const std::size_t d = edit_distance(typed, c);
        if (d < best_distance && d < typed.size()) {
            best = c;
            best_distance = d;
        }
    }
    return best;
}

}  // namespace rblkctl
