// no-ptx-fallback: with no PTX policy, a library whose device code no GPU
// newer than some shipped GPU can run (SASS only, or PTX that JITs only for
// its own GPU or family) is flagged, naming the newest GPU it runs on and
// the shipped GPUs above it that get "no kernel image is available" (209).
// The prediction is arch::predict() over the shipped desktop and data-centre
// GPUs (cuda-facts.md 1.6, 3.2), the one show prints as "runs on".
// Quiet when the policy says anything about PTX (`ptx = "none"` opts out,
// `ptx = "newest"` leaves it to missing-ptx), for objects with LTO-IR, and
// for a library no shipped desktop GPU runs (a Jetson-only build), and for
// raw .cubin files (one GPU's code by nature; a program that ships them
// picks one per GPU).
#include <algorithm>

#include "cuwheel/cuda/arch.h"
#include "cuwheel/cuda/compat.h"
#include "device_arch.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {

// "sm_90 (Hopper), sm_100 sm_103 sm_120 (Blackwell)": runs of one family.
std::string by_family(const std::vector<unsigned>& sms) {
  std::string out, family;
  for (size_t i = 0; i < sms.size(); ++i) {
    std::string f(arch::family_name(sms[i]));
    if (i) out += f == family ? " " : (family.empty() ? ", " : " (" + family + "), ");
    out += arch::Arch{sms[i]}.sm_name();
    family = f;
  }
  if (!family.empty()) out += " (" + family + ")";
  return out;
}

}  // namespace

void no_ptx_fallback(const Context& ctx, Emitter& out) {
  if (ctx.policy.ptx_mode != Policy::PtxMode::unset) return;
  const std::vector<unsigned> shipped = arch::shipped_gpus();
  for (const auto& lib : ctx.model.libraries) {
    if (!device::has_sass_or_ptx(lib)) continue;
    // A raw cubin is one GPU's code by nature (the program picks the file
    // per GPU and cannot embed PTX in it).
    if (lib.device_read && lib.device.kind == ObjectKind::cubin) continue;
    const std::vector<arch::Arch> sass = arch::parse_names(lib.summary.sass), ptx = arch::parse_names(lib.summary.ptx);
    unsigned newest = 0;
    for (unsigned gpu : shipped)
      if (arch::predict(sass, ptx, gpu).by != arch::RunsBy::none) newest = gpu;
    if (newest == 0) continue;
    std::vector<unsigned> stranded;
    for (unsigned gpu : shipped)
      if (gpu > newest) stranded.push_back(gpu);
    if (stranded.empty()) continue;
    unsigned top = 0;
    for (const auto& a : sass) top = std::max(top, a.sm);
    for (const auto& a : ptx) top = std::max(top, a.sm);
    const arch::Arch plain{top};
    std::string family(arch::family_name(newest));
    std::string msg = device::label(ctx, lib) + " runs on no GPU newer than " + arch::Arch{newest}.sm_name() +
                      (family.empty() ? "" : " (" + family + ")") + ": " +
                      (ptx.empty() ? std::string("it has no PTX") : "its PTX (" + device::join(lib.summary.ptx) +
                                                                        ") JIT-compiles for no newer GPU") +
                      ", so " + by_family(stranded) + " get \"no kernel image is available\" (209)";
    std::string hint = "embed plain PTX of the newest architecture you build, which the driver JIT-compiles for "
                       "newer GPUs: -gencode arch=" + plain.compute_name() + ",code=" + plain.compute_name() +
                       " (`" + std::to_string(top / 10) + "." + std::to_string(top % 10) +
                       "+PTX` as the last TORCH_CUDA_ARCH_LIST entry); if the library is meant for these GPUs "
                       "only, set `ptx = \"none\"` in the policy";
    out.emit(lib.member, device::location(lib), msg, hint);
  }
}

}  // namespace cuwheel::check::rule_impl
