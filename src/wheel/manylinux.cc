// manylinux tags and the symbol versions they allow. See wheel/manylinux.h.
#include "cuwheel/wheel/manylinux.h"

#include <algorithm>
#include <cstdio>

namespace cuwheel {

const std::vector<ManylinuxPolicy>& manylinux_policies() {
  static const std::vector<ManylinuxPolicy> t = {
      {5, {3, 4, 8}, {1, 3, 1}},    // manylinux1
      {12, {3, 4, 13}, {1, 3, 3}},  // manylinux2010
      {17, {3, 4, 19}, {1, 3, 7}},  // manylinux2014
      {24, {3, 4, 22}, {1, 3, 10}}, {26, {3, 4, 22}, {1, 3, 10}}, {27, {3, 4, 24}, {1, 3, 11}},
      {28, {3, 4, 24}, {1, 3, 11}}, {31, {3, 4, 28}, {1, 3, 12}}, {34, {3, 4, 29}, {1, 3, 13}},
      {35, {3, 4, 30}, {1, 3, 13}}, {36, {3, 4, 30}, {1, 3, 13}}, {37, {3, 4, 30}, {1, 3, 13}},
      {38, {3, 4, 30}, {1, 3, 13}}, {39, {3, 4, 33}, {1, 3, 15}}, {40, {3, 4, 33}, {1, 3, 15}},
      {41, {3, 4, 33}, {1, 3, 15}},
  };
  return t;
}

std::optional<int> platform_tag_glibc(std::string_view tag) {
  auto starts = [&](std::string_view p) { return tag.substr(0, p.size()) == p; };
  if (starts("manylinux1_")) return 5;
  if (starts("manylinux2010_")) return 12;
  if (starts("manylinux2014_")) return 17;
  std::string t(tag);
  int major = 0, minor = 0;
  if (std::sscanf(t.c_str(), "manylinux_%d_%d_", &major, &minor) == 2 && major == 2 && minor >= 0) return minor;
  return std::nullopt;
}

const ManylinuxPolicy* manylinux_policy_for(int glibc_minor) {
  const ManylinuxPolicy* row = nullptr;
  for (const auto& r : manylinux_policies())
    if (r.glibc_minor <= glibc_minor) row = &r;
  return row;
}

std::optional<std::vector<int>> parse_dotted_version(std::string_view s) {
  std::vector<int> v;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i;
    long n = 0;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') {
      n = n * 10 + (s[j++] - '0');
      if (n > 1000000) return std::nullopt;
    }
    if (j == i) return std::nullopt;
    v.push_back(static_cast<int>(n));
    if (j == s.size()) break;
    if (s[j] != '.' || j + 1 == s.size()) return std::nullopt;
    i = j + 1;
  }
  if (v.empty()) return std::nullopt;
  return v;
}

std::string dotted_version_text(const std::vector<int>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "." : "") + std::to_string(v[i]);
  return out;
}

void SymbolVersionNeeds::add(const std::string& member, const std::string& ver) {
  auto bump = [&](std::optional<Max>& mx, const std::vector<int>& v) {
    if (!mx || mx->version < v) mx = Max{v, member, ver};
  };
  if (ver == "GLIBC_ABI_DT_RELR") bump(glibc, {2, 36});
  else if (ver.rfind("GLIBC_", 0) == 0) {
    if (auto v = parse_dotted_version(std::string_view(ver).substr(6))) bump(glibc, *v);
  } else if (ver.rfind("GLIBCXX_", 0) == 0) {
    if (auto v = parse_dotted_version(std::string_view(ver).substr(8))) bump(glibcxx, *v);
  } else if (ver.rfind("CXXABI_", 0) == 0) {
    if (auto v = parse_dotted_version(std::string_view(ver).substr(7))) bump(cxxabi, *v);
  }
}

bool SymbolVersionNeeds::allowed_by(int glibc_minor) const {
  const ManylinuxPolicy* row = manylinux_policy_for(glibc_minor);
  if (!row) return false;
  if (glibc && std::vector<int>{2, glibc_minor} < glibc->version) return false;
  if (glibcxx && row->glibcxx < glibcxx->version) return false;
  if (cxxabi && row->cxxabi < cxxabi->version) return false;
  return true;
}

std::optional<int> most_compatible_glibc(const SymbolVersionNeeds& needs, int floor) {
  for (const auto& r : manylinux_policies())
    if (r.glibc_minor >= floor && needs.allowed_by(r.glibc_minor)) return r.glibc_minor;
  return std::nullopt;
}

std::vector<std::string> manylinux_tags(int glibc_minor, std::string_view arch) {
  const std::string a(arch);
  std::vector<std::string> out{"manylinux_2_" + std::to_string(glibc_minor) + "_" + a};
  if (glibc_minor == 17) out.push_back("manylinux2014_" + a);
  if (glibc_minor == 12) out.push_back("manylinux2010_" + a);
  if (glibc_minor == 5) out.push_back("manylinux1_" + a);
  return out;
}

}  // namespace cuwheel
