// needed-version-mismatch: a file named in .gnu.version_r (version needs)
// that is not in DT_NEEDED: ld.so then fails an assertion in
// dl-version.c at load time (field report 5, microsoft/onnxruntime#9754,
// after `patchelf --replace-needed`). The reverse, a DT_NEEDED file with no
// version needs, is normal (a library without symbol versions), so it is
// only reported when the wheel's other libraries do need versions of that
// same file, which is what a rename of one side looks like (system
// libraries are exempt there: -lm without --as-needed is common). Dynamic
// loaders (ld-linux*) are exempt: they are always loaded.
#include <algorithm>
#include <set>

#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

void needed_version_mismatch(const Context& ctx, Emitter& out) {
  std::set<std::string> versioned_elsewhere;
  for (const auto& lib : ctx.model.libraries)
    if (loading::loadable(lib))
      for (const auto& f : lib.version_need_files) versioned_elsewhere.insert(f);
  for (const auto& lib : ctx.model.libraries) {
    if (!loading::loadable(lib)) continue;
    const auto& needed = lib.load.needed;
    for (const auto& f : lib.version_need_files) {
      if (std::find(needed.begin(), needed.end(), f) != needed.end()) continue;
      auto c = classify_soname(f);
      if (c.component == "ld-linux" || c.component == "ld64") continue;
      out.emit(lib.member, ".gnu.version_r " + f,
               "version needs name " + f + ", which is not in DT_NEEDED (" + loading::join_some(needed, 4) +
                   "); ld.so fails at load time",
               "rename both sides together (patchelf --replace-needed rewrites only DT_NEEDED): relink, or let the "
               "repair tool rewrite .gnu.version_r too");
    }
    const auto& vf = lib.version_need_files;
    for (const auto& n : needed) {
      if (std::find(vf.begin(), vf.end(), n) != vf.end()) continue;
      if (!versioned_elsewhere.count(n)) continue;
      // libm, libdl...: linked without --as-needed, often NEEDed with no symbol used.
      if (classify_soname(n).kind == LibraryKind::system) continue;
      out.emit(lib.member, "DT_NEEDED " + n,
               "DT_NEEDED " + n + " has no version needs here, while other libraries of the wheel need versions of it; "
               "one side of a rename is missing",
               "check that DT_NEEDED and .gnu.version_r name the same files (readelf -d -V)");
    }
  }
}

}  // namespace cuwheel::check::rule_impl
