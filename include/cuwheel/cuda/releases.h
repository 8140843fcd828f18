// cuwheel: the CUDA releases, as one table: each release with the PTX ISA
// version its compiler emits and the minimum Linux driver of its GA build.
// Every other question about a release (which PTX ISA a driver can JIT,
// which release a PTX entry came from, which releases `cuwheel arch
// --release` accepts) is a lookup in this table.
//
// Sources (cuda-facts.md, the project's sourced fact base; the section of
// each row is named in src/cuda/releases.cc):
//   PTX ISA -> first CUDA release   cuda-facts.md 2.1: NVIDIA/cuda-python
//                                   _ptx_utils.py, derived from the release
//                                   history table of the PTX ISA document
//                                   ("PTX ISA Version 9.x" chapter); 9.2-9.5
//                                   from secondary sources [M]
//   minimum Linux x86_64 driver     cuda-facts.md 2.2: CUDA 13.1 Release
//                                   Notes, Table 3 "CUDA Toolkit and
//                                   Corresponding Driver Versions" (GA
//                                   column); 13.1 U1-13.3 from copies of the
//                                   13.3 table [M]; none known from 13.4 on
//   12.7                            cuda-facts.md 2.1-2.2: never public; PTX
//                                   ISA 8.6 first appears publicly in 12.8
#pragma once

#include <compare>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/expected.h"

namespace cuwheel::cuda {

/// A CUDA toolkit release, major.minor ("12.8"; 12.8.1 and 12.8.93 read as
/// 12.8).
struct Release {
  unsigned major = 0;
  unsigned minor = 0;
  std::string to_string() const;  ///< "12.8"
  auto operator<=>(const Release&) const = default;
};

/// A PTX ISA version, the `.version X.Y` directive of PTX text.
struct PtxIsa {
  int major = 0;
  int minor = 0;
  std::string to_string() const;  ///< "8.7"
  auto operator<=>(const PtxIsa&) const = default;
};

/// One row of the release table.
struct ReleaseInfo {
  Release release;
  /// The PTX ISA its nvcc emits (the newest it knows): PTX ISA document,
  /// release history (cuda-facts.md 2.1). A release that introduced no ISA
  /// keeps its predecessor's (12.6 emits 8.5, as 12.5).
  PtxIsa ptx_isa;
  /// Minimum Linux x86_64 driver of the GA build ("570.26"); "" when the
  /// table has none (before 11.0, and from 13.4, whose release notes no
  /// longer bundle a driver: cuda-facts.md 2.2).
  std::string_view min_driver;
  /// false for 12.7 alone: built, its PTX ISA (8.6) known, but never
  /// published (cuda-facts.md 2.1-2.2).
  bool published = true;
  /// true from 11.0: the architecture tables of cuwheel/cuda/arch.h cover
  /// it, so it is a release `arch --release` and the check rules accept.
  /// Older rows are here for their PTX ISA only.
  bool current = true;
  /// What the release changes in the architectures nvcc can build (SASS and
  /// PTX alike), as SM numbers with an optional variant letter, separated by
  /// spaces: "100 100a 101 101a 120 120a". A release builds what its row and
  /// every earlier current row add, less what they remove; 11.0's row lists
  /// everything 11.0 builds. Deprecated architectures still build until
  /// removed. Sources: cuda-facts.md 3.1 (CMake
  /// Modules/Internal/CMakeCUDAArchitecturesAll.cmake to 12.9, the CUDA 12.x
  /// and 13.x release notes "Deprecated Architectures", Programming Guide
  /// "Feature Set Compiler Targets" for 'a' and 'f', LLVM NVPTX.td for sm_101
  /// becoming sm_110 in 13.0). Empty in rows that are not current.
  std::string_view adds;
  std::string_view deprecates;  ///< SM numbers, deprecated from this release
  std::string_view removes;     ///< SM numbers (every variant), no longer built
};

/// The whole table, oldest first: CUDA 6.0 to 13.5. Invariants (the unit
/// tests check them): releases strictly increase; PTX ISA never decreases;
/// drivers, where known, strictly increase; an architecture is added once,
/// deprecated at most once and removed at most once, in that order. The
/// per-architecture view (added, deprecated, removed, 'a'/'f' since) is
/// cuwheel/cuda/arch.h's check_buildable() and check_deprecated().
std::span<const ReleaseInfo> release_table();

/// The row of `r`, or nullptr when the table has none.
const ReleaseInfo* find_release(Release r);

/// The releases `cuwheel arch --release` and the rules accept, oldest
/// first: the published current rows, 11.0-11.8, 12.0-12.6, 12.8, 12.9,
/// 13.0-13.5.
const std::vector<Release>& known_releases();

/// Parses "12.8", "12.8.1", "cu128", "13" into a release of
/// known_releases(). Errors: not a version ("twelve", "12..8", "cu12"); a
/// release that was never published ("CUDA 12.7 was never released (12.6
/// was followed by 12.8)"); one outside the known range (the message names
/// it: "11.0 to 13.5").
Expected<Release> parse_release(std::string_view text);

/// The first published release that emits PTX ISA `isa`: 8.7 -> 12.8, 7.8
/// -> 11.8, 6.4 -> 10.1; 8.6 -> 12.8 (its first release, 12.7, was never
/// published). nullopt for a version no release emits (7.9, 3.0, 9.9):
/// cuda-facts.md 2.1.
std::optional<Release> release_for_ptx(PtxIsa isa);

/// The minimum Linux driver of release_for_ptx(isa), e.g. "570.26" for 8.7
/// (and 8.6); "" when the ISA or that release's driver is unknown:
/// cuda-facts.md 2.2.
std::string_view min_driver_for_ptx(PtxIsa isa);

/// Compares dotted driver versions numerically, component by component:
/// -1, 0 or 1 as `a` is older than, equal to or newer than `b`
/// ("580.65.06" > "570.124.06"; missing components count as 0, so "570.26"
/// equals "570.26.0"). nullopt when either is not dotted decimal digits.
/// Driver versions are MAJOR.MINOR[.PATCH] as the release notes' Table 3
/// writes them (cuda-facts.md 2.2).
std::optional<int> compare_driver_versions(std::string_view a, std::string_view b);

/// The newest PTX ISA in the table (9.5, CUDA 13.5). A PTX ISA above it is
/// one no release this cuwheel knows emits.
PtxIsa newest_ptx_isa();

}  // namespace cuwheel::cuda
