// The compatibility rules. See include/cuwheel/cuda/compat.h.
#include "cuwheel/cuda/compat.h"

namespace cuwheel::arch {

namespace {
// CC 10.1 (Thor, CUDA 12.x) is CC 11.0 from CUDA 13 on: one target
// (cuda-facts.md 3.1; PyTorch's DEVICE_REQUIREMENT treats them as one).
unsigned canonical(unsigned sm) { return sm == 101 ? 110 : sm; }
Arch canonical(Arch a) {
  a.sm = canonical(a.sm);
  return a;
}
}  // namespace

bool sass_runs_on(const Arch& cubin, unsigned gpu_in) {
  const Arch c = canonical(cubin);
  const unsigned gpu = canonical(gpu_in);
  if (c.sm == gpu) return true;                       // exact CC: 'a', 'f' and plain alike
  if (c.variant == Variant::kA) return false;         // 1.3: 'a' only on its exact CC
  if (is_tegra(c.sm) || is_tegra(gpu)) return false;  // 1.1: not across Tegra/desktop
  // 1.1: same major, minor at least the cubin's; 1.4: 'f' on its family,
  // which is the same rule for the families in Table 28 once Tegra is out.
  return c.major() == gpu / 10 && c.minor() <= gpu % 10;
}

bool ptx_runs_on(const Arch& ptx, unsigned gpu_in) {
  const Arch p = canonical(ptx);
  const unsigned gpu = canonical(gpu_in);
  if (p.sm > gpu) return false;                       // PTX only compiles forward
  if (p.variant == Variant::kA) return p.sm == gpu;   // 1.3
  if (p.variant == Variant::kF) {                     // 1.4: family members only
    if (p.sm == gpu) return true;
    if (is_tegra(gpu) || is_tegra(p.sm)) return false;
    return p.major() == gpu / 10;
  }
  return true;  // 1.2: the onion model, any higher CC
}

namespace {

// Preference among codes that serve one GPU: the exact CC first ('a', then
// 'f', then plain), then the highest SM.
int rank(const Arch& a, unsigned gpu) {
  int exact = a.sm == gpu ? 1000 : 0;
  int variant = a.variant == Variant::kA ? 2 : a.variant == Variant::kF ? 1 : 0;
  return exact + static_cast<int>(a.sm) * 3 + variant;
}

std::optional<Arch> best(const std::vector<Arch>& codes, unsigned gpu, bool (*runs)(const Arch&, unsigned)) {
  std::optional<Arch> out;
  for (const auto& a : codes)
    if (runs(a, gpu) && (!out || rank(a, gpu) > rank(*out, gpu))) out = a;
  return out;
}

}  // namespace

Prediction predict(const std::vector<Arch>& sass, const std::vector<Arch>& ptx, unsigned gpu) {
  Prediction p;
  p.gpu = gpu;
  if ((p.code = best(sass, gpu, sass_runs_on))) {
    p.by = RunsBy::native;
  } else if ((p.code = best(ptx, gpu, ptx_runs_on))) {
    p.by = RunsBy::jit;
  }
  return p;
}

}  // namespace cuwheel::arch
