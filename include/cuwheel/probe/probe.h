// cuwheel: will this device code run on that GPU with that driver? The
// static answer `cuwheel probe` gives, per image, per library and per
// wheel, from the bytes alone (docs/probe.md).
//
// An image is one fatbin container as the CUDA runtime registers it with
// the driver (__cudaRegisterFatBinary: one per translation unit or
// device-linked object) or as a library hands it to cuModuleLoadData
// itself (containers in `.ldata`/`.rodata`, fatbin::Origin::data). The
// driver picks the code of an image for the GPU when the image is loaded
// (cuda-facts.md 1.6):
//   1. a cubin that runs on the GPU natively (cuwheel/cuda/compat.h,
//      sass_runs_on): native;
//   2. else the best PTX by architecture that JIT-compiles for it
//      (ptx_runs_on): JIT, a one-time compile at first load, when the
//      driver knows its PTX ISA; when it does not, the load fails with
//      CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222 (cuda-facts.md 1.2), even
//      if a lower PTX of the image has an ISA it knows: the driver does
//      not fall back (measured, docs/probe.md);
//   3. else CUDA_ERROR_NO_BINARY_FOR_GPU, 209 ("no kernel image is
//      available for execution on the device").
// Relocatable containers (`__nv_relfatbin`, -rdc objects) are inputs of a
// device link, never loaded as they are, and are not images here.
//
// A GPU or a PTX ISA outside cuwheel's tables (cuwheel/cuda/arch.h,
// cuwheel/cuda/releases.h) is "unknown", never "runs".
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/expected.h"
#include "cuwheel/cuda/arch.h"
#include "cuwheel/cuda/releases.h"
#include "cuwheel/model/facts.h"
#include "cuwheel/object/devicecode.h"

namespace cuwheel::probe {

/// The answer for one GPU, weakest last: the order in which a library's
/// and a wheel's verdicts are the weakest of their parts' (weakest()).
enum class Verdict : uint8_t {
  native,           ///< a cubin runs as it is
  jit,              ///< PTX JIT-compiles at first load (a one-time cost per process, cached by the driver)
  unknown,          ///< outside the tables: a GPU or a PTX ISA cuwheel does not know
  partial,          ///< a library some of whose images run and some cannot (209/222 when their kernels are called)
  ptx_unsupported,  ///< only PTX the driver's JIT refuses: CUDA error 222
  no_image,         ///< no cubin and no PTX for the GPU: CUDA error 209
  /// the library's CUDA runtime is of a newer major than the driver
  /// supports: its first runtime call fails with cudaErrorInsufficientDriver
  /// (35), before any kernel, whatever its device code (runtime_need()).
  driver_too_old,
};
inline constexpr size_t kVerdicts = 7;

/// "native", "jit", "unknown", "partial", "ptx-unsupported", "no-image",
/// "driver-too-old": the JSON spelling.
std::string_view to_string(Verdict v);
/// The weaker of the two (the later in the enum).
Verdict weakest(Verdict a, Verdict b);
/// The CUDA error a launch gives: 209 (no_image), 222 (ptx_unsupported)
/// as CUresult of cuda.h; 35 (driver_too_old) as the runtime's
/// cudaError_t (cudaErrorInsufficientDriver, driver_types.h); 0 otherwise.
int cuda_error(Verdict v);

/// What a driver can JIT-compile: the newest CUDA release whose PTX ISA it
/// knows. A driver JITs PTX up to the ISA of the CUDA version it supports,
/// and minor-version compatibility does not extend to PTX (cuda-facts.md
/// 1.2, 2.3).
struct DriverLimit {
  std::string given;        ///< as given: "580.65", "13.0", or "13.0 (cuDriverGetVersion 13000)"
  cuda::Release cuda;       ///< the CUDA version it supports (13.0)
  cuda::PtxIsa max_isa;     ///< the PTX ISA of that release (9.0)
  /// The driver is newer than every release whose minimum driver the table
  /// knows (from 13.4 the release notes name none): PTX above `max_isa` is
  /// unknown, not refused.
  bool open_ended = false;
};

/// Parses --driver: a CUDA version ("13.0", "12.8", "cu128", as
/// cuda::parse_release reads it, for the CUDA version nvidia-smi shows)
/// or a Linux driver version ("580.65", "580.65.06", "535"), whose CUDA
/// is the newest release whose minimum driver (cuda-facts.md 2.2, the
/// release notes' Table 3) is at most it. A driver version is compared
/// on the components given: "580.65" is any 580.65.x, so it supports 13.0
/// (580.65.06). Errors: neither form; a driver older than the oldest
/// known minimum (450.51.05, CUDA 11.0).
Expected<DriverLimit> parse_driver(std::string_view text);

/// The limit of a user-mode driver that cuDriverGetVersion answered
/// `version` (13000 = 13.0; CUDA Driver API, Version Management). Errors:
/// a version that is no release of the table (the message gives it).
Expected<DriverLimit> driver_from_api_version(int version);

/// One GPU to answer for.
struct Gpu {
  unsigned sm = 0;        ///< compute capability as an SM number (90)
  std::string label;      ///< what the user or the driver called it: "H100", "NVIDIA H200 (device 0)", "sm_86"
  std::string matched;    ///< the product table entry a name matched ("GeForce RTX 5090"), "" for a CC
  /// The compute capability is one cuwheel/cuda/arch.h knows; false for
  /// anything else (sm_130): every verdict on it is unknown.
  bool known = false;
};

/// Parses one --gpu value: "sm_90", "compute capability" "9.0" or "90",
/// or a product name (cuda::find_gpu_product: "H100", "rtx 5090").
/// "all-known" and "this" are the caller's. Errors: an SM that is no
/// decimal number or has a variant letter (a GPU has no 'a'), a name the
/// product table does not hold (with its suggestions).
Expected<Gpu> parse_gpu(std::string_view text);

/// Every compute capability of the product table, ascending, labelled with
/// up to three of its products (as many as fit in 40 characters, at least
/// one, then ", ..."): the rows of `--gpu all-known`.
std::vector<Gpu> all_known_gpus();

/// The device code of one image.
struct Image {
  size_t container = 0;      ///< the container index (EntryFacts::container)
  uint64_t offset = 0;       ///< file offset of its first entry header
  std::vector<arch::Arch> sass;  ///< cubins (kind 2), 'a'/'f' as the entry header marks them
  struct Ptx {
    arch::Arch arch;
    std::string isa;         ///< PTX ISA "8.7" ("" when unread)
  };
  std::vector<Ptx> ptx;      ///< PTX entries (kind 1)
  size_t ltoir = 0;          ///< LTO-IR entries: linked by nvJitLink at run time, never loaded as they are
  /// The most kernels one of its cubins holds; nullopt when a cubin was
  /// not decoded.
  std::optional<size_t> kernels;
};

/// The images of `code`: one per container outside `__nv_relfatbin`
/// (executable, data and any other origin; a raw fatbin or cubin is one
/// image), in container order. Left out: containers without cubin, PTX or
/// LTO-IR entries, and those whose every entry is a decoded cubin without
/// a kernel (the device-link image nvcc adds to a library that needs no
/// device linking: nothing of it is ever launched, so it cannot fail).
std::vector<Image> images_of(const DeviceCode& code);

/// The answer for one image on one GPU.
struct ImageVerdict {
  Verdict verdict = Verdict::no_image;
  std::optional<arch::Arch> code;  ///< native: the cubin; jit: the PTX; ptx_unsupported: the PTX refused
  std::string ptx_isa;             ///< jit and ptx_unsupported: that PTX's ISA
  std::string needs_cuda;          ///< jit and ptx_unsupported: the first CUDA release of that ISA ("12.8")
  std::string needs_driver;        ///< the minimum Linux driver of that release ("570.26"; "" when unknown)
  std::string reason;              ///< one line: why (every verdict)
};

/// The prediction for `image` on `gpu` with `driver` (nullopt: any
/// driver; the JIT answer then names the driver it needs), by the steps at
/// the top of this file. Among usable PTX the one arch::predict() would
/// prefer is chosen (exact 'a'/'f' first, then the highest), and only that
/// one: when the driver refuses its ISA the image fails with 222 even if a
/// lower PTX would JIT (the driver does not fall back; measured on an H200
/// with driver 580.159.04, docs/probe.md, matrix library m16). Unknown:
/// `gpu.known` false (the reason says what the rules would give), or the
/// PTX the driver would take has an ISA the release table does not hold,
/// or one above an open-ended driver's limit. An image of LTO-IR only is
/// no_image (the driver cannot load it) with a reason that says so.
ImageVerdict judge_image(const Image& image, const Gpu& gpu, const std::optional<DriverLimit>& driver);

/// The answer for one library (its images) on one GPU.
struct LibraryVerdict {
  Verdict verdict = Verdict::no_image;
  size_t images = 0;
  std::array<size_t, kVerdicts> count{};  ///< images per Verdict (partial is never an image's)
  ImageVerdict worst;                     ///< the weakest image's
  ImageVerdict best;                      ///< the strongest image's
};

/// Every image judged: the library's verdict is the images' when they
/// agree, their weakest when none fails, and `partial` when some run (native,
/// jit or unknown) and some fail: its other kernels still run, and those of
/// the failing images fail only when called (a library may guard them by
/// compute capability, as PyTorch guards its sm_80+ kernels). All failing:
/// the weakest failure. `images` must not be empty.
LibraryVerdict judge_library(const std::vector<Image>& images, const Gpu& gpu,
                             const std::optional<DriverLimit>& driver);

/// The CUDA runtime a library starts before its first kernel, and so the
/// driver it needs: a runtime of major N needs a driver that supports CUDA
/// N.0 or newer (minor version compatibility covers N.x on an N.0 driver;
/// a driver of an older major makes every runtime call fail with
/// cudaErrorInsufficientDriver, 35: CUDA Compatibility guide, "Minor
/// Version Compatibility"; cuda-facts.md 2.3).
struct RuntimeNeed {
  int major = 0;
  /// true when the major is inferred, not read: a static runtime records no
  /// version cuwheel can read, so its major is taken to be that of the
  /// release whose nvcc emits the library's newest PTX ISA (the toolkit that
  /// compiled its device code, which links its static runtime).
  bool inferred = false;
  std::string evidence;  ///< "libcudart.so.13 (DT_NEEDED)", "static, PTX ISA 9.0 (CUDA 13.0)"
};

/// What `runtime` (model/facts.h) and the images say: shared or the runtime
/// itself: its soname's major; static: the major of release_for_ptx() of
/// the newest PTX ISA among `images` (nullopt when there is no PTX, or an
/// ISA no release emits); none: nullopt.
std::optional<RuntimeNeed> runtime_need(const CudaRuntime& runtime, const std::vector<Image>& images);

/// When `driver` supports a CUDA release of an older major than `need`,
/// turns `lv` into driver_too_old (every image, with a reason that names
/// both); otherwise leaves it as it is. Returns whether it did.
bool apply_runtime_need(LibraryVerdict& lv, const RuntimeNeed& need, const DriverLimit& driver);

/// Exit status of `probe` for verdicts: 0 when every one is native, 2 when
/// any is ptx_unsupported, no_image or driver_too_old, else 1.
int exit_status(const std::vector<Verdict>& verdicts);

}  // namespace cuwheel::probe
