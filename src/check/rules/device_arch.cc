// Helpers shared by the device-code rules. See device_arch.h.
#include "device_arch.h"

#include <charconv>

#include "cuwheel/object/fatbin.h"
#include "rules.h"

namespace cuwheel::check::rule_impl::device {

std::optional<Arch> parse_arch(std::string_view s) {
  for (std::string_view prefix : {"sm_", "compute_", "lto_"}) {
    if (s.substr(0, prefix.size()) != prefix) continue;
    s.remove_prefix(prefix.size());
    Arch a;
    if (!s.empty() && (s.back() == 'a' || s.back() == 'f')) {
      a.suffix = s.back();
      s.remove_suffix(1);
    }
    if (s.empty() || s.size() > 4) return std::nullopt;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), a.sm);
    if (ec != std::errc() || p != s.data() + s.size() || a.sm < 10) return std::nullopt;
    return a;
  }
  return std::nullopt;
}

std::string sass_name(const Arch& a) {
  return "sm_" + std::to_string(a.sm) + (a.suffix ? std::string(1, a.suffix) : "");
}
std::string ptx_name(const Arch& a) {
  return "compute_" + std::to_string(a.sm) + (a.suffix ? std::string(1, a.suffix) : "");
}

std::string entry_sass_name(const EntryFacts& e) {
  std::string a = e.cubin ? e.cubin->arch_name() : e.header_arch();
  if (e.arch_f && !a.empty() && a.back() != 'a' && a.back() != 'f') a += "f";
  return a;
}

bool is_tegra(int sm) { return sm == 53 || sm == 62 || sm == 72 || sm == 87 || sm == 101 || sm == 110; }

bool sass_runs_on(const Arch& c, int gpu) {
  if (c.sm == gpu) return true;                       // exact CC: 'a', 'f' and plain alike
  if (c.suffix == 'a') return false;                  // 1.3: 'a' only on its exact CC
  if (is_tegra(c.sm) || is_tegra(gpu)) return false;  // 1.1: not across Tegra/desktop
  // 1.1: same major, minor at least the cubin's; 1.4: 'f' on its family,
  // which is the same rule for the families in Table 28 once Tegra is out.
  return c.major() == gpu / 10 && c.minor() <= gpu % 10;
}

bool ptx_runs_on(const Arch& p, int gpu) {
  if (p.sm > gpu) return false;                 // PTX only compiles forward
  if (p.suffix == 'a') return p.sm == gpu;      // 1.3
  if (p.suffix == 'f') {                        // 1.4: family members only
    if (p.sm == gpu) return true;
    if (is_tegra(gpu) || is_tegra(p.sm)) return false;
    return p.major() == gpu / 10;
  }
  return true;  // 1.2: the onion model, any higher CC
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

std::string gencode_sass(const Arch& a) {
  Arch v = a;
  return "-gencode arch=" + ptx_name(v) + ",code=" + sass_name(a);
}

}  // namespace cuwheel::check::rule_impl::device
