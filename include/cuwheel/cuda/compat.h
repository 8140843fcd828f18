// cuwheel: whether device code runs on a GPU, by the compatibility rules
// NVIDIA documents (cuda-facts.md section 1):
//
//   SASS  a cubin for CC X.y runs on CC X.z with z >= y only, never across
//         majors (Programming Guide "Binary Compatibility", 1.1); not
//         between Tegra and desktop parts, so a Tegra cubin matches its own
//         CC only (same section); an 'a' cubin runs on its exact CC only
//         (Programming Guide "Feature Set Compiler Targets", 1.3); an 'f'
//         cubin on its family (1.4, Programming Guide Table 28), which for
//         the published families is the same major, minor at least its own.
//   PTX   JIT-compiles for its own CC and every higher one, across majors
//         (the "onion" model, Programming Guide "PTX Compatibility", 1.2);
//         'a' PTX for its exact CC only (PTX ISA text quoted in LLVM review
//         D155851, 1.3); 'f' PTX within its family only (1.4).
//
// CC 10.1 (Thor in CUDA 12.x) and 11.0 (Thor from CUDA 13) are one target
// across the rename (cuda-facts.md 3.1): sm_101 code is judged as sm_110
// and a 10.1 GPU as an 11.0 one.
//
// Whether the driver knows the PTX's ISA version is a separate question
// (cuwheel/cuda/releases.h, min_driver_for_ptx).
#pragma once

#include <optional>
#include <vector>

#include "cuwheel/cuda/arch.h"

namespace cuwheel::arch {

/// Does a cubin of `cubin` (its SM and 'a'/'f' variant as the entry names
/// it) run natively on a GPU of SM number `gpu` (86 for CC 8.6)? True on the
/// exact CC whatever the variant; otherwise false for 'a', false when either
/// side is Tegra (is_tegra), else same major with a minor at least the
/// cubin's. Sources: cuda-facts.md 1.1, 1.3, 1.4 (Programming Guide "Binary
/// Compatibility" and "Feature Set Compiler Targets"). No errors.
bool sass_runs_on(const Arch& cubin, unsigned gpu);

/// Can the driver JIT-compile PTX of `ptx` for a GPU of SM number `gpu`?
/// Never backwards (false when ptx.sm > gpu); 'a' PTX only on its exact CC;
/// 'f' PTX on its exact CC or, outside Tegra, a higher CC of the same major;
/// plain PTX on any higher CC. Sources: cuda-facts.md 1.2 (Programming
/// Guide "PTX Compatibility"), 1.3 (LLVM D155851 quoting the PTX ISA), 1.4.
/// The PTX ISA version is not considered here. No errors.
bool ptx_runs_on(const Arch& ptx, unsigned gpu);

/// How a GPU would run one library's device code.
enum class RunsBy : uint8_t {
  native,  ///< a cubin runs as it is
  jit,     ///< the driver JIT-compiles PTX at first load (a one-time cost)
  none,    ///< neither: the launch fails, "no kernel image is available" (209)
};

/// The prediction for one GPU.
struct Prediction {
  unsigned gpu = 0;             ///< SM number of the GPU (90 for CC 9.0)
  RunsBy by = RunsBy::none;
  std::optional<Arch> code;     ///< the cubin (native) or PTX (jit) that serves it
};

/// The prediction of cuda-facts.md 1.6 for a library with the cubins
/// `sass` and the PTX `ptx` on a GPU of SM number `gpu`: native when some
/// cubin sass_runs_on() it (the one chosen: the exact CC, 'a' before 'f'
/// before plain, else the highest CC at or below it); else jit when some
/// PTX ptx_runs_on() it (the highest such PTX, exact 'a'/'f' first); else
/// none. Whether the driver knows the PTX's ISA is not considered (see
/// cuda/releases.h, min_driver_for_ptx). The one prediction that show,
/// check's device rules and probe use. No errors.
Prediction predict(const std::vector<Arch>& sass, const std::vector<Arch>& ptx, unsigned gpu);

}  // namespace cuwheel::arch
