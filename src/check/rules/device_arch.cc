// Helpers shared by the device-code rules. See device_arch.h.
#include "device_arch.h"

#include <charconv>

#include "cuwheel/object/fatbin.h"
#include "rules.h"

namespace cuwheel::check::rule_impl::device {

std::string entry_sass_name(const EntryFacts& e) {
  std::string a = e.cubin ? e.cubin->arch_name() : e.header_arch();
  if (e.arch_f && !a.empty() && a.back() != 'a' && a.back() != 'f') a += "f";
  return a;
}

bool has_sass_or_ptx(const LibraryModel& lib) {
  if (!lib.summary.ltoir.empty()) return false;  // its SASS is made at the consumer's device link
  return !lib.summary.sass.empty() || !lib.summary.ptx.empty();
}

std::string label(const Context& ctx, const LibraryModel& lib) {
  // The finding's member already carries the path; the message names the file.
  std::string base = base_name(lib.member.empty() ? ctx.model.path : lib.member);
  if (!lib.archive_member.empty()) base += "(" + lib.archive_member + ")";
  return base;
}

std::string location(const LibraryModel& lib) {
  return lib.archive_member.empty() ? std::string() : "archive member " + lib.archive_member;
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string s;
  for (const auto& x : v) {
    if (!s.empty()) s += sep;
    s += x;
  }
  return s;
}

std::optional<int> compare_versions(std::string_view a, std::string_view b) {
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

std::string gencode_sass(const Arch& a) { return "-gencode arch=" + a.compute_name() + ",code=" + a.sm_name(); }

}  // namespace cuwheel::check::rule_impl::device
