// platform-tag: the highest GLIBC_x.y, GLIBCXX_3.4.z or CXXABI_1.3.z version
// that any library needs (.gnu.version_r) exceeds what the wheel's manylinux
// tag allows. A wheel with several platform tags promises all of them, so
// the lowest glibc among them binds. `linux_*` tags promise nothing and pass;
// musllinux tags are not judged here. A plugin library (opened with dlopen
// when it is chosen) that needs more is a warning: only the older machines
// that choose it fail, the rest of the package loads.
//
// Table: wheel/manylinux.h (auditwheel's manylinux-policy.json).
#include <map>
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
  // A plugin (opened with dlopen only when it is chosen at run time,
  // model/loading.h: plugin_evidence) that needs a newer glibc fails only
  // on the machines that choose it and are older: a warning; the rest of
  // the package loads. bitsandbytes' XPU backend needs GLIBC_2.32 in a
  // manylinux_2_24 wheel whose CUDA and CPU backends need 2.24.
  SymbolVersionNeeds needs, plugin_needs;
  std::map<std::string, std::string> plugin_of;  // member -> evidence
  for (size_t li = 0; li < m.libraries.size(); ++li) {
    const auto& lib = m.libraries[li];
    if (!loading::loadable(lib)) continue;
    const bool plugin = li < ctx.loads.plugin.size() && !ctx.loads.plugin[li].empty();
    if (plugin) plugin_of[lib.member] = ctx.loads.plugin[li];
    for (const auto& vn : lib.load.version_needs)
      for (const auto& ver : vn.versions) (plugin ? plugin_needs : needs).add(lib.member, ver);
  }
  using Ver = std::vector<int>;
  using Max = SymbolVersionNeeds::Max;
  auto report = [&](const std::optional<Max>& mx, const std::optional<Max>& core, const Ver& allowed,
                    const std::string& what, bool plugin) {
    if (!mx || !(allowed < mx->version)) return;
    const std::string msg = "needs " + mx->text + " but the platform tag " + promise_tag + " allows " + what +
                            " up to " + dotted_version_text(allowed);
    const std::string hint =
        "build in the manylinux image of that tag (or a sysroot as old), or raise the tag to what the libraries "
        "need (auditwheel show names the lowest possible)";
    if (!plugin) {
      out.emit(mx->member, ".gnu.version_r " + mx->text, msg, hint);
    } else if (!core || core->version < mx->version) {
      out.warn(mx->member, ".gnu.version_r " + mx->text,
               msg + "; the library is a plugin opened with dlopen when it is chosen at run time (" +
                   plugin_of[mx->member] + "), so it fails to load only where it is chosen on an older system, and "
                   "the rest of the package loads",
               "build the plugin as old as the tag, or say in the documentation which systems it needs");
    }
  };
  report(needs.glibc, std::nullopt, Ver{2, *promise}, "GLIBC", false);
  report(needs.glibcxx, std::nullopt, row->glibcxx, "GLIBCXX", false);
  report(needs.cxxabi, std::nullopt, row->cxxabi, "CXXABI", false);
  report(plugin_needs.glibc, needs.glibc, Ver{2, *promise}, "GLIBC", true);
  report(plugin_needs.glibcxx, needs.glibcxx, row->glibcxx, "GLIBCXX", true);
  report(plugin_needs.cxxabi, needs.cxxabi, row->cxxabi, "CXXABI", true);
}

}  // namespace cuwheel::check::rule_impl
