// platform-tag: the highest GLIBC_x.y, GLIBCXX_3.4.z or CXXABI_1.3.z version
// that any library needs (.gnu.version_r) exceeds what the wheel's manylinux
// tag allows. A wheel with several platform tags promises all of them, so
// the lowest glibc among them binds. `linux_*` tags promise nothing and pass;
// musllinux tags are not judged here.
//
// Table: pypa/auditwheel src/auditwheel/policy/manylinux-policy.json,
// "symbol_versions" for x86_64 (highest numeric GLIBC, GLIBCXX and CXXABI
// per policy), read at commit 86154d1 (2026-08). GLIBC_ABI_DT_RELR, listed
// from manylinux_2_36 on, counts as glibc 2.36. Policies not in the table use
// the nearest lower row for GLIBCXX/CXXABI.
#include <cstdio>
#include <optional>
#include <tuple>
#include <vector>

#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {

using Ver = std::vector<int>;

struct PolicyRow {
  int glibc_minor;  // manylinux_2_<minor>
  Ver glibcxx, cxxabi;
};

const std::vector<PolicyRow>& table() {
  static const std::vector<PolicyRow> t = {
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

std::optional<Ver> parse_ver(const std::string& s) {
  Ver v;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i;
    int n = 0;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') n = n * 10 + (s[j++] - '0');
    if (j == i) return std::nullopt;
    v.push_back(n);
    if (j == s.size()) break;
    if (s[j] != '.') return std::nullopt;
    i = j + 1;
  }
  if (v.empty()) return std::nullopt;
  return v;
}

std::string ver_text(const Ver& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "." : "") + std::to_string(v[i]);
  return out;
}

// The glibc minor a platform tag promises; nullopt for tags that promise none.
std::optional<int> tag_glibc(const std::string& tag) {
  if (tag.rfind("manylinux1_", 0) == 0) return 5;
  if (tag.rfind("manylinux2010_", 0) == 0) return 12;
  if (tag.rfind("manylinux2014_", 0) == 0) return 17;
  int major = 0, minor = 0;
  if (std::sscanf(tag.c_str(), "manylinux_%d_%d_", &major, &minor) == 2 && major == 2) return minor;
  return std::nullopt;
}

}  // namespace

void platform_tag(const Context& ctx, Emitter& out) {
  const auto& m = ctx.model;
  if (!m.parsed_filename) return;
  std::optional<int> promise;
  std::string promise_tag;
  for (const auto& t : m.parsed_filename->platform_tags)
    if (auto g = tag_glibc(t); g && (!promise || *g < *promise)) {
      promise = g;
      promise_tag = t;
    }
  if (!promise) return;
  const PolicyRow* row = nullptr;
  for (const auto& r : table())
    if (r.glibc_minor <= *promise) row = &r;
  if (!row) return;

  struct Max {
    Ver v;
    std::string member, text;
  };
  std::optional<Max> glibc, glibcxx, cxxabi;
  auto bump = [](std::optional<Max>& mx, const Ver& v, const std::string& member, const std::string& text) {
    if (!mx || mx->v < v) mx = Max{v, member, text};
  };
  for (const auto& lib : m.libraries) {
    if (!loading::loadable(lib)) continue;
    for (const auto& vn : lib.load.version_needs)
      for (const auto& ver : vn.versions) {
        if (ver == "GLIBC_ABI_DT_RELR") bump(glibc, {2, 36}, lib.member, ver);
        else if (ver.rfind("GLIBC_", 0) == 0) {
          if (auto v = parse_ver(ver.substr(6))) bump(glibc, *v, lib.member, ver);
        } else if (ver.rfind("GLIBCXX_", 0) == 0) {
          if (auto v = parse_ver(ver.substr(8))) bump(glibcxx, *v, lib.member, ver);
        } else if (ver.rfind("CXXABI_", 0) == 0) {
          if (auto v = parse_ver(ver.substr(7))) bump(cxxabi, *v, lib.member, ver);
        }
      }
  }
  auto report = [&](const std::optional<Max>& mx, const Ver& allowed, const std::string& what) {
    if (!mx || !(allowed < mx->v)) return;
    out.emit(mx->member, ".gnu.version_r " + mx->text,
             "needs " + mx->text + " but the platform tag " + promise_tag + " allows " + what + " up to " +
                 ver_text(allowed),
             "build in the manylinux image of that tag (or a sysroot as old), or raise the tag to what the libraries "
             "need (auditwheel show names the lowest possible)");
  };
  report(glibc, Ver{2, *promise}, "GLIBC");
  report(glibcxx, row->glibcxx, "GLIBCXX");
  report(cxxabi, row->cxxabi, "CXXABI");
}

}  // namespace cuwheel::check::rule_impl
