// deprecated-package-name: Requires-Dist names an archived `-cu13`
// placeholder of a CUDA 13 toolkit component (nvidia-cuda-runtime-cu13 is a
// 0.0.1 sdist saying "DEPRECATED: use nvidia-cuda-runtime"; cuda-facts.md
// 4.1). libclass knows the names and their replacements.
#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

void deprecated_package_name(const Context& ctx, Emitter& out) {
  auto reqs = loading::read_requirements(ctx.model);
  for (const auto& [text, d] : reqs.deprecated) {
    out.emit(ctx.model.dist_info.empty() ? "" : ctx.model.dist_info + "/METADATA", "Requires-Dist " + text,
             std::string(d.name) + " is a deprecated placeholder that installs no library; CUDA 13 toolkit packages "
                                   "dropped the -cu13 suffix",
             "require " + std::string(d.replacement) + " instead (or the matching cuda-toolkit[...] extra)");
    out.attach_fix({"rename-requirement", ctx.model.dist_info + "/METADATA", std::string(d.replacement), text});
  }
}

}  // namespace cuwheel::check::rule_impl
