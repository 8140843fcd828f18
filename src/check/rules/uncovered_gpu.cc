// uncovered-gpu: every GPU of the policy's `gpus` list must be able to run
// every library that carries device code, natively or by JIT, by the
// prediction of cuda-facts.md 1.6:
//   1. a cubin sm_X.y with the GPU's major and y <= its minor runs natively;
//      an 'a' cubin only on its exact CC, an 'f' cubin on its family;
//      Jetson/Tegra CCs only match themselves;
//   2. else PTX compute_ZW with ZW <= the GPU's CC is JIT-compiled; 'a' PTX
//      only on its exact CC, 'f' PTX only within its family;
//   3. else the launch fails with "no kernel image is available" (209).
// Field report 14: sm_52 and sm_86 SASS, no PTX, on an RTX 5070 Ti (12.0).
// Whether the driver can JIT the PTX's ISA is ptx-needs-newer-driver's job.
#include <algorithm>

#include "cuwheel/cuda/arch.h"
#include "cuwheel/cuda/compat.h"
#include "device_arch.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {

// Why no CUDA release of `major` can build plain sm_<sm> (the release table
// of include/cuwheel/cuda/arch.h, as `cuwheel arch --release`), or "" when one
// can. The reason is the one of the major's first release (13.0).
std::string unbuildable_in_major(int major, unsigned sm) {
  arch::Target t;
  t.sm = sm;
  t.sass = true;
  t.ptx = true;
  std::optional<std::string> first;
  for (const arch::Release& r : arch::known_releases()) {
    if (static_cast<int>(r.major) != major) continue;
    auto why = arch::check_buildable(t, r);
    if (!why) return "";
    if (!first) first = *why;
  }
  return first.value_or("");  // a major the table does not know: no claim
}

}  // namespace

void uncovered_gpu(const Context& ctx, Emitter& out) {
  if (ctx.policy.gpus.empty()) return;
  std::vector<std::pair<std::string, unsigned>> gpus;  // (as written, SM number)
  for (const auto& g : ctx.policy.gpus)
    if (auto a = arch::Arch::parse(g)) gpus.emplace_back(g, a->sm);
  for (const auto& lib : ctx.model.libraries) {
    if (!device::has_sass_or_ptx(lib)) continue;
    const std::vector<arch::Arch> sass = arch::parse_names(lib.summary.sass), ptx = arch::parse_names(lib.summary.ptx);
    std::vector<std::string> uncovered;
    for (const auto& [name, gpu] : gpus)
      if (arch::predict(sass, ptx, gpu).by == arch::RunsBy::none &&
          std::find(uncovered.begin(), uncovered.end(), name) == uncovered.end())
        uncovered.push_back(name);
    if (uncovered.empty()) continue;
    std::string msg = device::label(ctx, lib) + " cannot run on " + device::join(uncovered) +
                      ": no SASS for it and no PTX it can JIT (SASS: " +
                      (lib.summary.sass.empty() ? std::string("none") : device::join(lib.summary.sass)) +
                      "; PTX: " + (lib.summary.ptx.empty() ? std::string("none") : device::join(lib.summary.ptx)) + ")";
    // A GPU the policy's CUDA major cannot build gets no -gencode hint:
    // say so instead (CUDA 13 removed sm_50-sm_72).
    std::vector<std::string> flags, unbuildable;
    for (const auto& u : uncovered) {
      auto a = arch::Arch::parse(u);
      arch::Arch plain{a->sm};
      if (ctx.policy.cuda_major) {
        std::string why = unbuildable_in_major(*ctx.policy.cuda_major, a->sm);
        if (!why.empty()) {
          unbuildable.push_back(why);
          continue;
        }
      }
      flags.push_back("-gencode arch=" + plain.compute_name() + ",code=[" + plain.sm_name() + "," + plain.compute_name() + "]");
    }
    std::string hint;
    if (!flags.empty())
      hint = "add SASS for the GPU, or plain PTX of an architecture at or below it: " + device::join(flags, " ") +
             " (or `+PTX` on the last entry of TORCH_CUDA_ARCH_LIST)";
    if (!unbuildable.empty()) {
      const std::string major = std::to_string(*ctx.policy.cuda_major);
      hint += std::string(hint.empty() ? "" : "; ") + device::join(unbuildable, "; ") +
              ", and no CUDA " + major + " release can: drop it from the policy's `gpus`, or ship it from a CUDA " +
              std::to_string(*ctx.policy.cuda_major - 1) + " build";
    }
    out.emit(lib.member, device::location(lib), msg, hint);
  }
}

}  // namespace cuwheel::check::rule_impl
