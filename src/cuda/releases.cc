// The CUDA release table. See include/cuwheel/cuda/releases.h.
#include "cuwheel/cuda/releases.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace cuwheel::cuda {

namespace {

// One row per CUDA release: {release, PTX ISA it emits, minimum Linux x86_64
// driver of the GA build, published, current}.
//
// PTX ISA column: cuda-facts.md 2.1 (NVIDIA/cuda-python _ptx_utils.py, from
// the PTX ISA document's release history; CUDA 6.0-10.2 from the same
// history: 4.0 = 6.0, 4.1 = 6.5, 4.2 = 7.0, 4.3 = 7.5, 5.0 = 8.0, 6.0-6.2 =
// 9.0-9.2, 6.3-6.5 = 10.0-10.2). 12.6 introduced no PTX ISA and emits 12.5's
// 8.5. 9.2-9.5 are secondary-sourced [M].
// Architecture columns (adds, deprecates, removes): cuda-facts.md 3.1. 11.0
// adds sm_80 and deprecates sm_35/37/50; 11.1 sm_86; 11.4 sm_87; 11.8 sm_89
// and sm_90; 12.0 removes Kepler (sm_35, sm_37) and adds sm_90a (1.3); 12.8
// adds sm_100, sm_101, sm_120 with 'a' and deprecates Maxwell, Pascal and
// Volta; 12.9 adds sm_103, sm_121 and every 'f' (1.4); 13.0 removes sm_50 to
// sm_72, renames sm_101 to sm_110 (LLVM NVPTX.td) and adds sm_88; 13.4 adds
// sm_107 [L-M].
// Driver column: cuda-facts.md 2.2 (CUDA 13.1 Release Notes, Table 3, GA
// builds; 13.1 and older [H], 13.2 and 13.3 from copies of the 13.3 table
// [M]). 12.7 was never released; 13.4 and 13.5 list no bundled driver (a
// single report, R616, is not enough to gate on).
constexpr ReleaseInfo kReleases[] = {
    {{6, 0}, {4, 0}, "", true, false},
    {{6, 5}, {4, 1}, "", true, false},
    {{7, 0}, {4, 2}, "", true, false},
    {{7, 5}, {4, 3}, "", true, false},
    {{8, 0}, {5, 0}, "", true, false},
    {{9, 0}, {6, 0}, "", true, false},
    {{9, 1}, {6, 1}, "", true, false},
    {{9, 2}, {6, 2}, "", true, false},
    {{10, 0}, {6, 3}, "", true, false},
    {{10, 1}, {6, 4}, "", true, false},
    {{10, 2}, {6, 5}, "", true, false},
    {{11, 0}, {7, 0}, "450.51.05", true, true, "35 37 50 52 53 60 61 62 70 72 75 80", "35 37 50"},
    {{11, 1}, {7, 1}, "455.23", true, true, "86"},
    {{11, 2}, {7, 2}, "460.27.03"},
    {{11, 3}, {7, 3}, "465.19.01"},
    {{11, 4}, {7, 4}, "470.42.01", true, true, "87"},
    {{11, 5}, {7, 5}, "495.29.05"},
    {{11, 6}, {7, 6}, "510.39.01"},
    {{11, 7}, {7, 7}, "515.43.04"},
    {{11, 8}, {7, 8}, "520.61.05", true, true, "89 90"},
    {{12, 0}, {8, 0}, "525.60.13", true, true, "90a", "", "35 37"},
    {{12, 1}, {8, 1}, "530.30.02"},
    {{12, 2}, {8, 2}, "535.54.03"},
    {{12, 3}, {8, 3}, "545.23.06"},
    {{12, 4}, {8, 4}, "550.54.14"},
    {{12, 5}, {8, 5}, "555.42.02"},
    {{12, 6}, {8, 5}, "560.28.03"},
    {{12, 7}, {8, 6}, "", false, true},
    {{12, 8}, {8, 7}, "570.26", true, true, "100 100a 101 101a 120 120a", "52 53 60 61 62 70 72"},
    {{12, 9}, {8, 8}, "575.51.03", true, true, "100f 101f 103 103a 103f 120f 121 121a 121f"},
    {{13, 0}, {9, 0}, "580.65.06", true, true, "88 110 110a 110f", "", "50 52 53 60 61 62 70 72 101"},
    {{13, 1}, {9, 1}, "590.44.01"},
    {{13, 2}, {9, 2}, "595.45.04"},
    {{13, 3}, {9, 3}, "610.43.02"},
    {{13, 4}, {9, 4}, "", true, true, "107 107a 107f"},
    {{13, 5}, {9, 5}, ""},
};

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string> split_dots(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == '.') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace

std::string Release::to_string() const { return std::to_string(major) + "." + std::to_string(minor); }
std::string PtxIsa::to_string() const { return std::to_string(major) + "." + std::to_string(minor); }

std::span<const ReleaseInfo> release_table() { return kReleases; }

const ReleaseInfo* find_release(Release r) {
  for (const auto& row : kReleases)
    if (row.release == r) return &row;
  return nullptr;
}

const std::vector<Release>& known_releases() {
  static const std::vector<Release> k = [] {
    std::vector<Release> v;
    for (const auto& row : kReleases)
      if (row.published && row.current) v.push_back(row.release);
    return v;
  }();
  return k;
}

Expected<Release> parse_release(std::string_view text) {
  std::string s(text);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
  std::string bad = "CUDA release \"" + s + "\" is not of the form 12.8 (or cu128)";
  Release r;
  if (s.rfind("cu", 0) == 0) {
    std::string d = s.substr(2);
    if (!all_digits(d) || d.size() < 3 || d.size() > 4) return Error(bad);
    r.major = static_cast<unsigned>(std::stoul(d.substr(0, d.size() - 1)));
    r.minor = static_cast<unsigned>(d.back() - '0');
  } else {
    auto parts = split_dots(s);
    if (parts.empty() || parts.size() > 3 || s.front() == '.' || s.back() == '.' ||
        s.find("..") != std::string::npos)
      return Error(bad);
    for (const auto& p : parts)
      if (!all_digits(p) || p.size() > 6) return Error(bad);
    r.major = static_cast<unsigned>(std::stoul(parts[0]));
    r.minor = parts.size() > 1 ? static_cast<unsigned>(std::stoul(parts[1])) : 0;
  }
  if (const ReleaseInfo* row = find_release(r); row && !row->published) {
    // The next published release, for the message ("12.6 was followed by 12.8").
    const ReleaseInfo* prev = nullptr;
    const ReleaseInfo* next = nullptr;
    for (const auto& x : kReleases) {
      if (x.published && x.release < r) prev = &x;
      if (x.published && x.release > r && !next) next = &x;
    }
    std::string msg = "CUDA " + r.to_string() + " was never released";
    if (prev && next) msg += " (" + prev->release.to_string() + " was followed by " + next->release.to_string() + ")";
    return Error(msg);
  }
  const auto& k = known_releases();
  if (std::find(k.begin(), k.end(), r) == k.end())
    return Error("CUDA " + r.to_string() + " is not a release this table knows (" + k.front().to_string() + " to " +
                 k.back().to_string() + ")");
  return r;
}

std::optional<Release> release_for_ptx(PtxIsa isa) {
  bool seen = false;  // a row emits `isa`; take the first published one from there
  for (const auto& row : kReleases) {
    if (row.ptx_isa == isa) seen = true;
    if (seen && row.published) return row.release;
  }
  return std::nullopt;
}

std::string_view min_driver_for_ptx(PtxIsa isa) {
  auto r = release_for_ptx(isa);
  if (!r) return "";
  const ReleaseInfo* row = find_release(*r);
  return row ? row->min_driver : std::string_view();
}

std::optional<int> compare_driver_versions(std::string_view a, std::string_view b) {
  auto split = [](std::string_view s) -> std::optional<std::vector<unsigned long>> {
    std::vector<unsigned long> out;
    if (s.empty()) return std::nullopt;
    size_t i = 0;
    while (true) {
      size_t dot = s.find('.', i);
      std::string_view part = s.substr(i, dot == std::string_view::npos ? std::string_view::npos : dot - i);
      unsigned long v = 0;
      auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
      if (part.empty() || ec != std::errc() || p != part.data() + part.size()) return std::nullopt;
      out.push_back(v);
      if (dot == std::string_view::npos) break;
      i = dot + 1;
    }
    return out;
  };
  auto x = split(a), y = split(b);
  if (!x || !y) return std::nullopt;
  size_t n = std::max(x->size(), y->size());
  x->resize(n, 0);
  y->resize(n, 0);
  for (size_t i = 0; i < n; ++i)
    if ((*x)[i] != (*y)[i]) return (*x)[i] < (*y)[i] ? -1 : 1;
  return 0;
}

PtxIsa newest_ptx_isa() { return std::end(kReleases)[-1].ptx_isa; }

}  // namespace cuwheel::cuda
