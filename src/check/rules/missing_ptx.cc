// missing-ptx: the PTX the policy requires must be in every library that
// carries device code. `ptx = "newest"`: plain compute_NN of the highest
// architecture of the `sass` list (or, with no list, of the library's own
// highest SASS), so that GPUs newer than the build can JIT it (field report
// 14); a listed set: each compute_NN named; "none" or unset: nothing.
// 'a' and 'f' PTX do not stand in for plain PTX: they run on one GPU or one
// family only (cuda-facts.md 1.3, 1.4).
#include <algorithm>

#include "device_arch.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {

// The highest SM number of a list of architecture names, or 0.
unsigned highest_sm(const std::vector<std::string>& names) {
  unsigned best = 0;
  for (const auto& n : names)
    if (auto a = arch::Arch::parse(n)) best = std::max(best, a->sm);
  return best;
}

}  // namespace

void missing_ptx(const Context& ctx, Emitter& out) {
  using Mode = Policy::PtxMode;
  const Policy& p = ctx.policy;
  if (p.ptx_mode != Mode::newest && p.ptx_mode != Mode::list) return;
  if (p.ptx_mode == Mode::list && p.ptx.empty()) return;
  const unsigned policy_top = highest_sm(p.sass);
  for (const auto& lib : ctx.model.libraries) {
    if (!device::has_sass_or_ptx(lib)) continue;
    std::vector<std::string> want;
    if (p.ptx_mode == Mode::newest) {
      unsigned top = policy_top ? policy_top : highest_sm(lib.summary.sass);
      if (top == 0) continue;  // PTX only and no list: nothing to compare with
      want.push_back(arch::Arch{top}.compute_name());
    } else {
      want = p.ptx;
    }
    const auto& have = lib.summary.ptx;
    std::vector<std::string> missing, flags;
    for (const auto& w : want) {
      if (std::find(have.begin(), have.end(), w) != have.end()) continue;
      if (std::find(missing.begin(), missing.end(), w) != missing.end()) continue;
      missing.push_back(w);
      if (auto a = arch::Arch::parse(w)) flags.push_back("-gencode arch=" + w + ",code=" + a->compute_name());
    }
    if (missing.empty()) continue;
    std::string msg = device::label(ctx, lib) + " lacks PTX for " + device::join(missing) + " (has " +
                      (have.empty() ? std::string("no PTX") : device::join(have)) + ")";
    out.emit(lib.member, device::location(lib), msg,
             "embed the PTX: add " + device::join(flags, " ") +
                 " to the nvcc flags (`+PTX` in TORCH_CUDA_ARCH_LIST, or NN without `-real` in "
                 "CMAKE_CUDA_ARCHITECTURES)");
  }
}

}  // namespace cuwheel::check::rule_impl
