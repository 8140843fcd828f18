// tag-mismatch: the tags in the file name (what installers select by) must
// equal the `Tag:` lines of WHEEL (what the builder declared). PEP 427,
// "File name convention" and "The .dist-info directory"; PEP 425 for
// compressed tag sets.
//
// A wheel built as `linux_<arch>` and renamed by hand to a manylinux or
// musllinux tag (cupy, vllm, torchvision and torchaudio do it) installs:
// pip and uv select by the file name and never read WHEEL's `Tag:` lines.
// When the two differ only so (same interpreter and ABI tags, WHEEL's
// platforms all `linux_<arch>`, the name's all manylinux/musllinux of that
// arch) it is a warning; platform-tag checks what the name promises.
//
// WHEEL's `Build:` field and the file name's build tag (PEP 427: "Build is
// the build number and is omitted if there is no build number") must agree
// too. Installers order candidates by the file name's build tag and never
// read WHEEL's, so a disagreement is a warning: the wheel installs, but a
// tool that retags or re-uploads it from WHEEL gets another build number.
#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {

// The architecture of a Linux platform tag (PEP 600, PEP 656, PEP 599):
// linux_x86_64, manylinux2014_x86_64 -> after the first '_';
// manylinux_2_28_x86_64, musllinux_1_2_aarch64 -> after the third.
std::string arch_of(const std::string& p) {
  size_t skip = (p.rfind("manylinux_", 0) == 0 || p.rfind("musllinux_", 0) == 0) ? 3 : 1;
  size_t i = std::string::npos;
  for (size_t k = 0, from = 0; k < skip; ++k, from = i + 1)
    if ((i = p.find('_', from)) == std::string::npos) return p;
  return p.substr(i + 1);
}

// A well-formed manylinux or musllinux platform tag (PEP 513, 571, 599,
// 600, 656): manylinux1/2010/2014_<arch>, or many/musllinux_<X>_<Y>_<arch>
// with decimal X and Y, and a non-empty arch. Installers reject anything
// else, so a malformed name is no harmless rename.
bool valid_linux_tag(const std::string& p) {
  auto digits = [](const std::string& t) {
    return !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
  };
  for (const char* legacy : {"manylinux1_", "manylinux2010_", "manylinux2014_"})
    if (p.rfind(legacy, 0) == 0) return p.size() > std::string(legacy).size();
  if (p.rfind("manylinux_", 0) != 0 && p.rfind("musllinux_", 0) != 0) return false;
  size_t a = p.find('_', 10);
  if (a == std::string::npos) return false;
  size_t b = p.find('_', a + 1);
  if (b == std::string::npos) return false;
  return digits(p.substr(10, a - 10)) && digits(p.substr(a + 1, b - a - 1)) && b + 1 < p.size();
}

void build_tag_mismatch(const CheckModel& m, Emitter& out) {
  const std::optional<std::string>& from_name = m.parsed_filename->build;
  const std::optional<std::string>& from_wheel = m.wheel_info->build;
  if (from_name == from_wheel) return;
  const std::string name_says = from_name ? "build tag " + *from_name : "no build tag";
  const std::string wheel_says = from_wheel ? "Build: " + *from_wheel : "no Build field";
  out.warn(m.dist_info + "/WHEEL", "Build",
           "the file name has " + name_says + " and WHEEL has " + wheel_says +
               ": installers order by the file name's build tag and never read WHEEL's, so the wheel installs, but "
               "the two build numbers disagree",
           from_name ? "write `Build: " + *from_name + "` into WHEEL (or rebuild with that build number)"
                     : "remove the Build field from WHEEL, or rename the wheel with `wheel tags --build " +
                           *from_wheel + "`, which rewrites both");
}

}  // namespace

void tag_mismatch(const Context& ctx, Emitter& out) {
  const CheckModel& m = ctx.model;
  if (m.kind != CheckModel::Kind::wheel || !m.parsed_filename || !m.wheel_info) return;
  build_tag_mismatch(m, out);
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
  // Tag text "py3-none-linux_x86_64": interpreter-abi before the last '-'.
  auto head = [](const std::string& t) { return t.substr(0, t.rfind('-')); };
  auto plat = [](const std::string& t) { return t.substr(t.rfind('-') + 1); };
  bool renamed = !only_name.empty() && !only_wheel.empty();
  std::set<std::string> heads_name, heads_wheel, arch_name, arch_wheel;
  for (const auto& t : only_name) {
    const std::string p = plat(t);
    heads_name.insert(head(t));
    renamed = renamed && valid_linux_tag(p);
    arch_name.insert(arch_of(p));
  }
  for (const auto& t : only_wheel) {
    const std::string p = plat(t);
    heads_wheel.insert(head(t));
    renamed = renamed && p.rfind("linux_", 0) == 0;
    arch_wheel.insert(arch_of(p));
  }
  renamed = renamed && heads_name == heads_wheel && arch_name == arch_wheel;
  if (renamed) {
    out.warn(m.dist_info + "/WHEEL", "Tag",
             "the file name says [" + join(only_name) + "] and WHEEL says [" + join(only_wheel) +
                 "]: the wheel was built for linux and renamed by hand; installers select by the file name, so it "
                 "installs, but nothing has checked that it keeps the manylinux promise (platform-tag does that here)",
             "repair it (auditwheel or cuwheel repair) or retag it with `wheel tags --platform-tag`, which rewrites WHEEL too");
    return;
  }
  out.emit(m.dist_info + "/WHEEL", "Tag", "file name tags [" + join(only_name) + "] are not in WHEEL; WHEEL tags [" +
               join(only_wheel) + "] are not in the file name",
           "rename the wheel with `wheel tags` (or repair it) instead of renaming the file by hand");
}

}  // namespace cuwheel::check::rule_impl
