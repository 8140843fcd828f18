// The compatibility rules. See include/cuwheel/cuda/compat.h.
#include "cuwheel/cuda/compat.h"

namespace cuwheel::arch {

bool sass_runs_on(const Arch& c, unsigned gpu) {
  if (c.sm == gpu) return true;                       // exact CC: 'a', 'f' and plain alike
  if (c.variant == Variant::kA) return false;         // 1.3: 'a' only on its exact CC
  if (is_tegra(c.sm) || is_tegra(gpu)) return false;  // 1.1: not across Tegra/desktop
  // 1.1: same major, minor at least the cubin's; 1.4: 'f' on its family,
  // which is the same rule for the families in Table 28 once Tegra is out.
  return c.major() == gpu / 10 && c.minor() <= gpu % 10;
}

bool ptx_runs_on(const Arch& p, unsigned gpu) {
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
