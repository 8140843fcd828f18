// Helpers shared by the device-code rules. See device_arch.h.
#include "device_arch.h"

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

std::string gencode_sass(const Arch& a) { return "-gencode arch=" + a.compute_name() + ",code=" + a.sm_name(); }

}  // namespace cuwheel::check::rule_impl::device
