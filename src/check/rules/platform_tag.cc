// platform-tag: the highest GLIBC_x.y, GLIBCXX_3.4.z or CXXABI_1.3.z version
// that any library needs (.gnu.version_r) exceeds what the wheel's manylinux
// tag allows. A wheel with several platform tags promises all of them, so
// the lowest glibc among them binds. `linux_*` tags promise nothing and pass;
// musllinux tags are not judged here.
//
// Table: wheel/manylinux.h (auditwheel's manylinux-policy.json).
#include <optional>
#include <vector>

#include "cuwheel/wheel/manylinux.h"

#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

void platform_tag(const Context& ctx, Emitter& out) {
  const auto& m = ctx.model;
  if (!m.parsed_filename) return;
  std::optional<int> promise;
  std::string promise_tag;
  for (const auto& t : m.parsed_filename->platform_tags)
    if (auto g = platform_tag_glibc(t); g && (!promise || *g < *promise)) {
      promise = g;
      promise_tag = t;
    }
  if (!promise) return;
  const ManylinuxPolicy* row = manylinux_policy_for(*promise);
  if (!row) return;
  SymbolVersionNeeds needs;
  for (const auto& lib : m.libraries) {
    if (!loading::loadable(lib)) continue;
    for (const auto& vn : lib.load.version_needs)
      for (const auto& ver : vn.versions) needs.add(lib.member, ver);
  }
  using Ver = std::vector<int>;
  using Max = SymbolVersionNeeds::Max;
  auto report = [&](const std::optional<Max>& mx, const Ver& allowed, const std::string& what) {
    if (!mx || !(allowed < mx->version)) return;
    out.emit(mx->member, ".gnu.version_r " + mx->text,
             "needs " + mx->text + " but the platform tag " + promise_tag + " allows " + what + " up to " +
                 dotted_version_text(allowed),
             "build in the manylinux image of that tag (or a sysroot as old), or raise the tag to what the libraries "
             "need (auditwheel show names the lowest possible)");
  };
  report(needs.glibc, Ver{2, *promise}, "GLIBC");
  report(needs.glibcxx, row->glibcxx, "GLIBCXX");
  report(needs.cxxabi, row->cxxabi, "CXXABI");
}

}  // namespace cuwheel::check::rule_impl
