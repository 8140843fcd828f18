// cuwheel: what a shared-library name (a soname or DT_NEEDED entry) is.
//
// Pure and table-driven: no I/O, no allocation in classify_soname(), no
// global state beyond constant tables. Every fact below comes from
// cuda-facts.md, the project's sourced fact base on CUDA wheels; section
// numbers refer to it. Where its tables disagree, section 7 (what real wheels were
// observed to install) wins over section 4 (what the upstream catalogs
// say). docs/library-classes.md prints the same tables for people.
//
// Upstream sources the tables are written from (and must be re-checked
// against when they change):
//   - NVIDIA/cuda-python  cuda_pathfinder/.../descriptor_catalog.py
//       sonames and site-packages folders per CUDA major (section 4.2)
//   - NVIDIA/libnvidia-container  src/nvc_info.c
//       the driver's user-space libraries (section 5)
//   - pypa/auditwheel  src/auditwheel/policy/manylinux-policy.json
//       the manylinux `lib_whitelist` (section 5)
//   - the `cuda-toolkit` metapackage's extras and the RECORD files of an
//     installed CUDA 13 environment (sections 4.1 and 7)
//
// Scope and known unknowns:
//   - Only CUDA 12 and CUDA 13 have pip providers here. A few CUDA 11
//     sonames (section 4.2, "for completeness") are recognised so that
//     `libcusolver.so.11` honestly reports {11, 12} rather than just {12};
//     there are no CUDA 11 distributions in the table.
//   - Package names that no section states are marked Evidence::inferred
//     (e.g. nvidia-nvfatbin, nvidia-npp, nvidia-nvjpeg and their -cu12 twins).
//   - Whether nvidia-nvtx-cu12 ships libnvtx3interop, and whether CUDA 12's
//     CUPTI wheel ships libnvperf_host.so and friends, is not recorded in
//     the fact base; see docs/library-classes.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cuwheel {

/// The four answers classify_soname() can give.
enum class LibraryKind {
  /// A CUDA library that an NVIDIA pip package provides (section 4.2, 7):
  /// never bundle it; depend on the distribution instead.
  cuda_toolkit,
  /// A driver user-space library (section 5, nvc_info.c): must match the
  /// kernel module, so it is never bundled and never declared as a pip
  /// dependency. Any version suffix counts (libcuda.so.570.86.10).
  nvidia_driver,
  /// glibc, the compiler runtime and the manylinux baseline that auditwheel
  /// leaves external (manylinux-policy.json `lib_whitelist`, plus the
  /// dynamic loaders and libmvec named in section 5).
  system,
  /// Anything else, including names that are not shared objects at all.
  unknown,
};

/// "cuda_toolkit", "nvidia_driver", "system", "unknown".
std::string_view to_string(LibraryKind kind);

/// How firmly a table row is established.
enum class Evidence {
  /// Seen in the RECORD/METADATA of installed wheels (section 7).
  observed,
  /// Stated by an upstream source the fact base marks [H] (sections 4, 5).
  documented,
  /// Follows the naming pattern of its neighbours but no source states it.
  inferred,
};

/// "observed", "documented", "inferred".
std::string_view to_string(Evidence evidence);

/// A set of CUDA major versions (11, 12, 13). Small and trivially copyable.
class CudaMajors {
 public:
  constexpr CudaMajors() = default;
  static constexpr int kFirst = 11;
  static constexpr int kLast = 13;

  constexpr void insert(int major) {
    if (major >= kFirst && major <= kLast) bits_ |= uint8_t(1u << (major - kFirst));
  }
  constexpr bool contains(int major) const {
    return major >= kFirst && major <= kLast && (bits_ >> (major - kFirst)) & 1u;
  }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr int size() const {
    int n = 0;
    for (int m = kFirst; m <= kLast; ++m) n += contains(m) ? 1 : 0;
    return n;
  }
  /// The only member, when there is exactly one.
  constexpr std::optional<int> single() const {
    if (size() != 1) return std::nullopt;
    for (int m = kFirst; m <= kLast; ++m)
      if (contains(m)) return m;
    return std::nullopt;
  }
  /// Members in ascending order.
  std::vector<int> list() const;
  constexpr bool operator==(const CudaMajors&) const = default;

 private:
  uint8_t bits_ = 0;
};

/// How the name's version suffix relates to the table row it matched.
enum class SonameForm {
  /// Stem and major version number match a row ("libcudart.so.12"). A real
  /// file name with more components ("libcudart.so.12.8.90",
  /// "libnvrtc-builtins.so.13.0") matches the same way. Driver and system
  /// names always use this form when recognised.
  exact,
  /// A known toolkit stem with no version ("libcudart.so"): the
  /// development symlink. It pins no major; a DT_NEEDED entry in this form
  /// means the library was linked against a file without a soname.
  unversioned,
  /// A known toolkit stem with a version no listed major uses
  /// ("libcudart.so.14", "libcudnn.so.8").
  other_version,
  /// Not recognised (kind is unknown).
  none,
};

/// One pip distribution from the table.
struct Distribution {
  /// PEP 503-normalized name: "nvidia-cuda-runtime-cu12".
  std::string_view name;
  /// 12 or 13.
  int cuda_major = 0;
  /// Folder in site-packages holding its shared libraries
  /// ("nvidia/cuda_runtime/lib", "nvidia/cu13/lib"); empty for packages that
  /// install headers or tools only (nvidia-cuda-cccl, nvidia-cuda-crt...).
  std::string_view directory;
  /// The `cuda-toolkit[extra]` of the same major that selects it; empty
  /// when cuda-toolkit does not (cuDNN, NCCL, NVSHMEM, cuSPARSELt).
  std::string_view toolkit_extra;
  /// How firmly the name, folder and extra are established.
  Evidence evidence = Evidence::inferred;
  /// Non-empty for a deprecated placeholder name (the archived 0.0.1
  /// `nvidia-*-cu13` sdists of toolkit components, section 4.1): the
  /// distribution to use instead. Such entries have no directory or sonames.
  std::string_view replacement;
  /// The sonames it installs (canonical spellings; a '*' stands for a name
  /// or minor-version part that varies: "libnvrtc-builtins.so.12.*",
  /// "nvshmem_transport_*.so.3").
  std::vector<std::string_view> sonames;

  bool deprecated() const { return !replacement.empty(); }
};

/// Where a toolkit component lives in one CUDA major.
struct Provision {
  int cuda_major = 0;
  /// The component's soname in that major ("libcufft.so.11" for 12,
  /// "libcufft.so.12" for 13).
  std::string_view soname;
  /// The pip distribution that installs it, its site-packages folder and
  /// the cuda-toolkit extra selecting it (empty if none), as in Distribution.
  std::string_view distribution;
  std::string_view directory;
  std::string_view toolkit_extra;
  Evidence evidence = Evidence::inferred;
};

/// The answer for one name.
struct LibraryClass {
  LibraryKind kind = LibraryKind::unknown;
  SonameForm form = SonameForm::none;
  /// The library's short name: "cudart", "cublasLt", "nvJitLink", "cufft",
  /// "nppc", "cudnn_ops", "nvshmem_host", "nvToolsExt"; for driver
  /// libraries "cuda", "nvidia-ml", "nvidia-nvvm" ("nvidia-*" for a
  /// libnvidia-* name outside nvc_info.c's lists); for system libraries
  /// "c", "stdc++", "glib-2.0", and "ld-linux" / "ld64" for any dynamic
  /// loader. Empty when kind is unknown.
  std::string_view component;
  /// For the driver: the nvc_info.c class ("utility", "compute", "video",
  /// "graphics", "ngx", "dxcore", "tegra"); for system libraries: "glibc",
  /// "compiler-runtime", "graphics", "glib" or "zlib"/"expat"; else empty.
  std::string_view group;
  /// The CUDA majors whose pip packages install a file with this soname.
  /// One member: the name pins the major (libcudart.so.12 -> {12}). Several:
  /// ambiguous (libcurand.so.10 -> {11, 12, 13}; libcusparse.so.12 ->
  /// {12, 13}). Empty for non-toolkit kinds and for unversioned or
  /// other_version toolkit names.
  CudaMajors majors;
  /// Where this component comes from in CUDA 12 and in CUDA 13, whatever
  /// `majors` says (so a caller can suggest "libcufft.so.12 is CUDA 13's;
  /// CUDA 12 has libcufft.so.11 in nvidia-cufft-cu12"). Unset when the
  /// component has no pip provider in that major.
  std::optional<Provision> cuda12;
  std::optional<Provision> cuda13;
  /// True when the name is a grafted copy's (grafted_original() found the
  /// original inside it) and the answer is about the original.
  bool grafted = false;
  /// A short caveat when one applies (an inferred row, an unversioned
  /// development name, a not-a-shared-object near miss); else empty.
  std::string_view note;

  /// The provision for `major` (12 or 13), or nullptr.
  const Provision* provision(int major) const;
  /// The major the name pins, when exactly one.
  std::optional<int> major() const { return majors.single(); }
  /// True when the name matches more than one CUDA major.
  bool ambiguous() const { return majors.size() > 1; }
};

/// The original name of a library that a repair tool copied into a wheel
/// under a hashed name, or nullopt when `name` has no such form.
///
/// auditwheel repair (pypa/auditwheel, repair.py `copylib`) copies each
/// external library into `<package>.libs/` as `<base>-<hash>.<ext>`, where
/// `<base>.<ext>` is the original file name split at its first '.', and
/// `<hash>` the first 8 hex digits of the file's SHA-256, and sets the
/// copy's DT_SONAME and every DT_NEEDED that named it to the new name:
/// "libcudart-53d54daa.so.12.6.68" -> "libcudart.so.12.6.68". Some
/// projects graft with their own scripts as `<base>.<hash>.<ext>`
/// (torchvision: "libcudart.3eda8113.so.13" -> "libcudart.so.13"). Both
/// forms need exactly 8 lowercase hex digits and a "so" right after them;
/// a leading directory part is kept out of the answer.
std::optional<std::string> grafted_original(std::string_view name);

/// Classifies a shared-library name.
///
/// A grafted copy's name (grafted_original()) is classified as the
/// original and says so in LibraryClass::grafted: a renamed libcudart
/// is still the CUDA runtime.
///
/// Input: a soname or DT_NEEDED entry ("libcudart.so.12"), or a real file
/// name ("libcuda.so.570.86.10"); a leading directory part is ignored
/// ("nvidia/cu13/lib/libcudart.so.13" reads as "libcudart.so.13").
/// Matching is case-sensitive, like the dynamic loader. The name is split
/// into a stem and a version: "<stem>.so" optionally followed by
/// ".<digits>" groups; names without that shape (static archives such as
/// "libcudart_static.a", "libfoo.so.x") are unknown.
///
/// Order: the driver table (section 5; stems, any version, plus every
/// "libnvidia-*" stem), then the toolkit table (sections 4.2 and 7; stem
/// and first version number), then the system table (exact stem and first
/// version number of the manylinux whitelist; any "ld-linux*"/"ld64.so"
/// loader). Near misses stay unknown: "libcuda_wrapper.so" is not the
/// driver; "libnvvm.so.4" is the toolkit's NVVM while
/// "libnvidia-nvvm.so.4" is the driver's.
///
/// Output: see LibraryClass. Every view in it points into static tables
/// (never into `soname`) and stays valid for the program's life.
LibraryClass classify_soname(std::string_view soname);

/// The whole table for one CUDA major (12 or 13): every current (not
/// deprecated) distribution with its folder, extra and sonames, in table
/// order. Empty for any other major. Source: sections 4.1, 4.2 and 7.
std::vector<Distribution> distributions_for_major(int major);

/// Looks a distribution up by name. The name is PEP 503-normalized first
/// (case folded, runs of '-', '_' and '.' become '-'), so
/// "NVIDIA_CUDA_Runtime.cu12" finds nvidia-cuda-runtime-cu12. Knows the
/// deprecated "-cu13" placeholders of CUDA 13 toolkit components
/// (nvidia-cuda-runtime-cu13 -> deprecated, replacement nvidia-cuda-runtime;
/// section 4.1, evidence documented for the six names it lists, inferred for
/// the rest). Returns nullopt for names not in the table.
std::optional<Distribution> lookup_distribution(std::string_view name);

/// A `cuda-toolkit[extra]` of one major.
struct ToolkitExtra {
  std::string_view extra;
  int cuda_major = 0;
  /// The distribution it selects; empty when the extra is known to exist
  /// (section 7 lists it) but its distribution's name is not recorded
  /// ("cuxxfilt", "nvptxcompiler", "opencl", "sanitizer"), and for "all".
  std::string_view distribution;
  Evidence evidence = Evidence::inferred;
};

/// Resolves `cuda-toolkit[extra]` for CUDA `major` (12 or 13) to the
/// distribution it installs: ("cudart", 12) -> nvidia-cuda-runtime-cu12,
/// ("cudart", 13) -> nvidia-cuda-runtime. The extra is PEP 685-normalized
/// (same rule as names). Returns nullopt for extras the fact base does not
/// list for that major. Sources: section 4.1 (confirmed extras, "12.x extras
/// map to -cu12 packages") and section 7 (13.0.2's extras and targets).
std::optional<ToolkitExtra> cuda_toolkit_extra(std::string_view extra, int major);

/// PEP 503 normalization: lower-case, and every run of '-', '_', '.' becomes
/// one '-'. Exposed for callers that compare Requires-Dist names.
std::string normalize_distribution_name(std::string_view name);

}  // namespace cuwheel
