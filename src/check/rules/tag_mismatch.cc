// tag-mismatch: the tags in the file name (what installers select by) must
// equal the `Tag:` lines of WHEEL (what the builder declared). PEP 427,
// "File name convention" and "The .dist-info directory"; PEP 425 for
// compressed tag sets.
#include <algorithm>
#include <set>

#include "rules.h"

namespace cuwheel::check::rule_impl {

void tag_mismatch(const Context& ctx, Emitter& out) {
  const CheckModel& m = ctx.model;
  if (m.kind != CheckModel::Kind::wheel || !m.parsed_filename || !m.wheel_info) return;
  std::set<std::string> from_name, from_wheel(m.wheel_info->tags.begin(), m.wheel_info->tags.end());
  for (const auto& t : m.parsed_filename->tags()) from_name.insert(t.to_string());
  if (from_name == from_wheel) return;
  std::vector<std::string> only_name, only_wheel;
  std::set_difference(from_name.begin(), from_name.end(), from_wheel.begin(), from_wheel.end(), std::back_inserter(only_name));
  std::set_difference(from_wheel.begin(), from_wheel.end(), from_name.begin(), from_name.end(), std::back_inserter(only_wheel));
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s.empty() ? std::string("none") : s;
  };
  out.emit(m.dist_info + "/WHEEL", "Tag", "file name tags [" + join(only_name) + "] are not in WHEEL; WHEEL tags [" +
               join(only_wheel) + "] are not in the file name",
           "rename the wheel with `wheel tags` (or repair it) instead of renaming the file by hand");
}

}  // namespace cuwheel::check::rule_impl
