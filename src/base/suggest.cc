// See suggest.h.
#include "base/suggest.h"

#include <algorithm>

namespace cuwheel::suggest {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string_view>& candidates) {
  const size_t limit = word.size() < 9 ? 2 : 3;
  std::string_view best;
  size_t best_d = limit + 1;
  for (std::string_view c : candidates) {
    if (c == word) return "";
    // The distance is at least the difference in length: skip the work.
    size_t gap = c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
    if (gap >= best_d) continue;
    size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  return std::string(best);
}

std::string nearest(std::string_view word, std::initializer_list<std::string_view> candidates) {
  return nearest(word, std::vector<std::string_view>(candidates));
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
  std::string n = nearest(word, candidates);
  return n.empty() ? "" : " (did you mean \"" + n + "\"?)";
}

std::string did_you_mean(std::string_view word, std::initializer_list<std::string_view> candidates) {
  return did_you_mean(word, std::vector<std::string_view>(candidates));
}

}  // namespace cuwheel::suggest
