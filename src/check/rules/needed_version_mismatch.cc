// needed-version-mismatch: a file named in .gnu.version_r (version needs)
// that is not in DT_NEEDED: ld.so then fails an assertion in
// dl-version.c at load time (field report 5, microsoft/onnxruntime#9754,
// after `patchelf --replace-needed`). The reverse, a DT_NEEDED file with no
// version needs, is normal (torch's libtorch_global_deps.so NEEDs
// libcudart.so.13 and uses none of its symbols), so it is only named in the
// message as the likely other half of the rename. Dynamic loaders (ld-linux*)
// are exempt: they are always loaded.
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
      // The other half of a rename: NEEDED names without version needs.
      std::vector<std::string> bare;
      for (const auto& n : needed)
        if (std::find(lib.version_need_files.begin(), lib.version_need_files.end(), n) == lib.version_need_files.end() &&
            classify_soname(n).kind != LibraryKind::system && std::find(bare.begin(), bare.end(), n) == bare.end())
          bare.push_back(n);
      out.emit(lib.member, ".gnu.version_r " + f,
               "version needs name " + f + ", which is not in DT_NEEDED (" + loading::join_some(needed, 4) +
                   "); ld.so fails at load time" +
                   (bare.empty() ? "" : " (renamed to " + loading::join_some(bare, 2) + "?)"),
               "rename both sides together (patchelf --replace-needed rewrites only DT_NEEDED): relink, or let the "
               "repair tool rewrite .gnu.version_r too");
      out.attach_fix({"replace-version-need", lib.member, bare.size() == 1 ? bare[0] : std::string(), f});
    }
  }
}

}  // namespace cuwheel::check::rule_impl
