// unexpected-sass: with `sass-exact`, a library carrying device code may
// carry SASS only for the architectures of the policy's `sass` list (the
// seeds' "exactly the SASS of the toolkit's release list"): extra targets
// mean the build did not use the release's flags, and they cost size.
#include <algorithm>

#include "device_arch.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

void unexpected_sass(const Context& ctx, Emitter& out) {
  const auto& want = ctx.policy.sass;
  if (!ctx.policy.sass_exact || want.empty()) return;
  for (const auto& lib : ctx.model.libraries) {
    if (!device::has_sass_or_ptx(lib)) continue;
    std::vector<std::string> extra;
    for (const auto& h : lib.summary.sass)
      if (std::find(want.begin(), want.end(), h) == want.end()) extra.push_back(h);
    if (extra.empty()) continue;
    out.emit(lib.member, device::location(lib),
             device::label(ctx, lib) + " carries SASS for " + device::join(extra) +
                 ", which the policy's exact list (" + device::join(want) + ") does not name",
             "drop the extra -gencode targets (or the architectures in TORCH_CUDA_ARCH_LIST / "
             "CMAKE_CUDA_ARCHITECTURES), or add them to the policy's `sass` list");
  }
}

}  // namespace cuwheel::check::rule_impl
