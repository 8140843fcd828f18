// cuwheel: GPU architecture lists in the forms build systems use, and what
// each CUDA toolkit release can build.
//
// One list of targets, four spellings (each parser accepts exactly its own):
//
//   torch    TORCH_CUDA_ARCH_LIST          "7.5;8.0;9.0+PTX;9.0a"
//            "X.Y" is SASS for sm_XY; "+PTX" adds PTX for compute_XY;
//            "a"/"f" suffixes name the feature-set targets. Separators: ';',
//            whitespace or ','. Case-sensitive as PyTorch reads it:
//            "+PTX" only (arch.endswith('+PTX')), 'a'/'f' lower case
//            (torch/utils/cpp_extension.py _get_cuda_arch_flags).
//   cmake    CMAKE_CUDA_ARCHITECTURES      "75-real;80-real;90"
//            "NN" is SASS and PTX, "NN-real" SASS only, "NN-virtual" PTX
//            only (CMake documentation of CUDA_ARCHITECTURES); suffixes
//            and 'a'/'f' lower case.
//   gencode  nvcc flags                    "-gencode arch=compute_90,code=[sm_90,compute_90]"
//            also "-gencode=...", "--generate-code ...", code="a,b",
//            and "-arch=sm_XY" (nvcc: shorthand for SASS and PTX of XY).
//   list     plain names                   "sm_75,sm_80,compute_90"
//            (nvcc's names are lower case: "sm_90a", never "SM_90A")
//
// An architecture number is a decimal number without leading zeros, at most
// 9 digits; any such number parses ("sm_0", "sm_99"), and check_known()
// says whether a GPU has it. A spelling that differs from its consumer's
// only in case ("9.0+ptx", "90-REAL", "SM_90") is a parse error whose
// message gives the spelling to write.
//
// Named forms are refused with a message that says to name architectures:
// PyTorch's family names ("Hopper", "Ampere+Tegra") and CMake's "native",
// "all", "all-major". Release builds must state what they build; a named form
// resolves to whatever the build machine or the bundled CMake module thinks.
//
// What each toolkit release can target is the release table's "adds",
// "deprecates" and "removes" columns (cuwheel/cuda/releases.h, one row per
// release); this module joins them with the properties of each compute
// capability (family, Tegra, a documented product). Sources: cuda-facts.md
// 3.1 and 3.2, which cite CMake's
// Modules/Internal/CMakeCUDAArchitecturesAll.cmake, the CUDA 12.x and 13.x
// release notes ("Deprecated Architectures") and the CUDA C++ Programming
// Guide section "Feature Set Compiler Targets" (the 'a' and 'f' variants);
// docs/arch.md explains the rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/expected.h"
#include "cuwheel/cuda/releases.h"

namespace cuwheel::arch {

/// Feature-set variant of a target: baseline, architecture-specific ('a',
/// CUDA 12.0+, runs only on that exact compute capability) or family-specific
/// ('f', CUDA 12.9+, runs on the family). Programming Guide "Feature Set
/// Compiler Targets".
enum class Variant : uint8_t { kBase, kA, kF };

/// One GPU architecture: an SM number (10 * major + minor: 75, 90, 100,
/// 121) and its feature-set variant. The one architecture type of cuwheel:
/// build lists (Target), the compatibility rules (cuwheel/cuda/compat.h) and
/// the check rules all use it.
struct Arch {
  unsigned sm = 0;
  Variant variant = Variant::kBase;

  unsigned major() const { return sm / 10; }
  unsigned minor() const { return sm % 10; }
  /// "sm_90a" (always the sm_ spelling).
  std::string sm_name() const;
  /// "compute_90a".
  std::string compute_name() const;
  /// Compute capability "9.0", with the variant letter: "9.0a".
  std::string cc_name() const;

  /// Parses a name as binaries, summaries and policies write it:
  /// "sm_NN[a|f]", "compute_NN[a|f]" or "lto_NN[a|f]" with 2 to 4 digits
  /// (leading zeros allowed: "sm_090" is sm_90) and an SM of at least 10.
  /// nullopt for anything else. Build-system lists are parsed by parse(),
  /// which is stricter.
  static std::optional<Arch> parse(std::string_view name);
  bool operator==(const Arch&) const = default;
};

/// One architecture with what is built for it.
struct Target : Arch {
  bool sass = false;             ///< a cubin for sm_<sm> (CMake "-real")
  bool ptx = false;              ///< PTX for compute_<sm> (CMake "-virtual")
  bool operator==(const Target&) const = default;
};

/// True for the Jetson/Tegra compute capabilities 5.3, 6.2, 7.2, 8.7, 10.1
/// (CUDA 12.x's Thor) and 11.0 (Thor from CUDA 13): binary compatibility does
/// not cross between them and desktop parts (cuda-facts.md 1.1, Programming
/// Guide "Binary Compatibility"; 3.2 for which parts are Tegra). False for
/// any other number, known or not.
bool is_tegra(unsigned sm);

/// True for a compute capability of the architecture table (every SM a
/// CUDA release from 11.0 builds, cuda-facts.md 3.1, and Kepler's 3.5/3.7):
/// one whose compatibility rules cuwheel knows. False for any other number
/// (sm_130, sm_95).
bool is_known_cc(unsigned sm);

/// The spellings above.
enum class Form : uint8_t { kTorch, kCmake, kGencode, kList };

/// "torch", "cmake", "gencode", "list".
std::string_view to_string(Form f);
/// Inverse of to_string; nullopt for any other text.
std::optional<Form> parse_form(std::string_view s);

/// Guesses the form of `text`: gencode when it contains "-gencode",
/// "--generate-code", "-arch" or "arch=compute_"; list when a token starts
/// with "sm_" or "compute_"; torch when a token contains '.' or "+PTX" or is
/// a PyTorch family name; cmake otherwise (bare numbers, -real/-virtual,
/// native/all/all-major). Errors: empty text.
Expected<Form> detect_form(std::string_view text);

/// Parses `text` in `form` into targets sorted by (sm, variant), entries for
/// the same architecture merged (SASS and PTX flags or-ed). Syntax only: an
/// architecture no toolkit knows (sm_0, sm_99) parses; see check_known().
/// Errors name the offending entry: a token that is not of the form (with
/// the consumer's spelling when only the case differs), a
/// named family or CMake's native/all/all-major (with the advice to name
/// architectures explicitly), a gencode whose code is older than its arch,
/// an empty list.
Expected<std::vector<Target>> parse(std::string_view text, Form form);

/// detect_form() then parse().
Expected<std::vector<Target>> parse_any(std::string_view text);

/// Writes `targets` in `form`, in the order given. Errors: a PTX-only target
/// in torch form (its "+PTX" always adds the SASS too).
Expected<std::string> format(const std::vector<Target>& targets, Form form);

/// CUDA releases come from the release table (cuwheel/cuda/releases.h):
/// Release, parse_release() ("12.8", "cu128"; 12.7 and releases outside
/// 11.0-13.5 refused) and known_releases() (oldest first).
using cuda::Release;
using cuda::parse_release;
using cuda::known_releases;

/// Why `t` is not a real architecture: sm unknown to every release, or an
/// 'a'/'f' variant that does not exist for it. nullopt when it is known.
std::optional<std::string> check_known(const Target& t);

/// Why `release` cannot build `t` ("sm_50: CUDA 13.0 cannot build it: it was
/// removed in 13.0 (Maxwell, Pascal and Volta)"), or nullopt when it can.
/// Unknown architectures are reported as by check_known().
std::optional<std::string> check_buildable(const Target& t, Release release);

/// Why `t` is deprecated in `release` though still buildable ("sm_70: CUDA
/// 12.8 deprecates it (Volta); CUDA 13.0 removes it"), or nullopt.
std::optional<std::string> check_deprecated(const Target& t, Release release);

/// Every baseline, 'a' and 'f' architecture `release` can build (SASS and
/// PTX alike), sorted.
std::vector<Target> targetable(Release release);

/// The release list of `release`: SASS for every compute capability of a
/// shipped, non-Tegra GPU that the release can build and does not deprecate
/// (baseline variants), and PTX of its last (highest) entry only. See
/// docs/arch.md "The release list" for the rule and the table it gives.
std::vector<Target> release_list(Release release);

/// Arch::parse() of each name ("sm_90a", "compute_120f"), in order, the
/// names that do not parse left out: a device summary's `sass` or `ptx`
/// list as the input of predict() (cuda/compat.h).
std::vector<Arch> parse_names(const std::vector<std::string>& names);

/// The compute capabilities of shipped GPUs (a documented product),
/// ascending; Jetson/Tegra parts only when `with_tegra`. The GPUs a
/// prediction is made for when none is named (cuda-facts.md 3.2).
std::vector<unsigned> shipped_gpus(bool with_tegra = false);

/// Product family of a compute capability ("Hopper", "Blackwell", ...), ""
/// when unknown.
std::string_view family_name(unsigned sm);

}  // namespace cuwheel::arch
