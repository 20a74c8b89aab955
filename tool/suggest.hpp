// "Did you mean ...?" for a mistyped subcommand or option, as git and
// systemctl offer one: the closest candidate by edit distance, or none.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rblkctl {

// Optimal string alignment distance (Damerau-Levenshtein without
// re-editing a substring): insertions, deletions, substitutions and
// transpositions of adjacent characters, one each.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `typed`, if at most 2 edits away and fewer edits
// than `typed` has characters (so "x" suggests nothing); the first listed
// wins a tie.
std::optional<std::string> closest(std::string_view typed,
                                   const std::vector<std::string>& candidates);

}  // namespace rblkctl
