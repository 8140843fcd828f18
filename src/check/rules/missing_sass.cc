// missing-sass: every library that carries device code must carry SASS for
// each architecture of the policy's `sass` list, on its own (field reports
// 16 and 17: a release silently lacked sm_89; a cu124 wheel stopped at
// sm_90). Names compare as summarize() names them: "sm_90a" is not "sm_90",
// "sm_100f" is not "sm_100" (cuda-facts.md 1.3, 1.4).
#include <algorithm>

#include "device_arch.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

void missing_sass(const Context& ctx, Emitter& out) {
  const auto& want = ctx.policy.sass;
  if (want.empty()) return;
  for (const auto& lib : ctx.model.libraries) {
    if (!device::has_sass_or_ptx(lib)) continue;
    const auto& have = lib.summary.sass;
    std::vector<std::string> missing, related;
    std::vector<std::string> flags;
    for (const auto& w : want) {
      if (std::find(have.begin(), have.end(), w) != have.end()) continue;
      if (std::find(missing.begin(), missing.end(), w) != missing.end()) continue;
      missing.push_back(w);
      auto wa = arch::Arch::parse(w);
      if (!wa) continue;
      flags.push_back(device::gencode_sass(*wa));
      // Say when a variant of the same SM is there ("has sm_90a"): the
      // policy asked for another name, which runs on other GPUs.
      for (const auto& h : have) {
        auto ha = arch::Arch::parse(h);
        if (ha && ha->sm == wa->sm && std::find(related.begin(), related.end(), h) == related.end())
          related.push_back(h);
      }
    }
    if (missing.empty()) continue;
    std::string msg = device::label(ctx, lib) + " lacks SASS for " + device::join(missing) + " (has " +
                      (have.empty() ? std::string("no SASS") : device::join(have)) + ")";
    if (!related.empty())
      msg += "; " + device::join(related) + (related.size() == 1 ? " is another target and does not count"
                                                                  : " are other targets and do not count");
    out.emit(lib.member, device::location(lib), msg,
             "build it for every policy architecture: add " + device::join(flags, " ") +
                 " to the nvcc flags (or the architectures to TORCH_CUDA_ARCH_LIST / CMAKE_CUDA_ARCHITECTURES)");
  }
}

}  // namespace cuwheel::check::rule_impl
