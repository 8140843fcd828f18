// "Did you mean" suggestions for misspelt names (internal header).
//
// Every place that rejects an unknown name the user typed (a policy key, a
// rule name, a flag value) suggests the nearest known one through here, so
// that all commands suggest by the same measure.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace cuwheel::suggest {

/// Levenshtein distance between `a` and `b` in bytes: the least number of
/// one-byte insertions, deletions and substitutions turning one into the
/// other. O(a.size() * b.size()) time, O(b.size()) memory.
size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate nearest to `word` by edit_distance(), when it is close
/// enough to be a plausible misspelling: at most 3 edits, and at most 2 for
/// words shorter than 9 bytes (so that short words are not "corrected" into
/// unrelated ones). Ties go to the earlier candidate. Returns "" when no
/// candidate is that close, or when `word` is itself a candidate.
std::string nearest(std::string_view word, const std::vector<std::string_view>& candidates);
std::string nearest(std::string_view word, std::initializer_list<std::string_view> candidates);

/// ` (did you mean "X"?)` for nearest(word, candidates) = X, or "" when
/// there is none: ready to append to an "unknown ..." message.
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates);
std::string did_you_mean(std::string_view word, std::initializer_list<std::string_view> candidates);

}  // namespace cuwheel::suggest
