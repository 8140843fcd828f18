// Helpers shared by the device-code rules (CW1xx): architecture names, the
// compatibility rules of cuda-facts.md section 1, and how a library is named
// in a message.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/check/check.h"

namespace cuwheel::check::rule_impl::device {

/// An architecture name split into its SM number and suffix:
/// "sm_90a" -> {90, 'a'}, "compute_120f" -> {120, 'f'}, "sm_80" -> {80, 0}.
struct Arch {
  int sm = 0;
  char suffix = 0;  ///< 0, 'a' or 'f'
  int major() const { return sm / 10; }
  int minor() const { return sm % 10; }
};

/// Parses "sm_NN[a|f]", "compute_NN[a|f]" or "lto_NN[a|f]". nullopt otherwise.
std::optional<Arch> parse_arch(std::string_view name);

/// "sm_90a" / "compute_90a" from an Arch.
std::string sass_name(const Arch& a);
std::string ptx_name(const Arch& a);

/// The SASS name of a cubin entry, named as summarize() names it: the
/// cubin's own SM and 'a' when read, else the entry header's, plus 'f' from
/// the header (the cubin never records 'f').
std::string entry_sass_name(const EntryFacts& e);

/// Jetson/Tegra compute capabilities (5.3, 6.2, 7.2, 8.7, 10.1 of CUDA 12.9,
/// 11.0): binary compatibility does not cross between them and desktop parts.
bool is_tegra(int sm);

/// cuda-facts.md 1.1, 1.3, 1.4: does a cubin of `cubin` run natively on a GPU
/// of compute capability `gpu` (SM number)?
bool sass_runs_on(const Arch& cubin, int gpu);

/// cuda-facts.md 1.2-1.4: can the driver JIT PTX of `ptx` for `gpu`?
/// Forward only; 'a' PTX on its exact CC only; 'f' PTX within its family.
bool ptx_runs_on(const Arch& ptx, int gpu);

/// True when the library has SASS or PTX and no LTO-IR. An object carrying
/// LTO-IR gets its final SASS at the device link of whoever links it, so the
/// SASS/PTX/GPU rules leave it alone.
bool has_sass_or_ptx(const LibraryModel& lib);

/// How a message names the library: the member's file name, "lib.a(obj.o)"
/// for an archive member, or the input's file name for a plain file.
std::string label(const Context& ctx, const LibraryModel& lib);

/// Finding::location for the library: "archive member obj.o" or "".
std::string location(const LibraryModel& lib);

/// "a, b, c" (or joined by `sep`).
std::string join(const std::vector<std::string>& v, std::string_view sep = ", ");

/// Compares dotted driver versions numerically, component by component
/// ("580.65.06" > "570.124.06"; missing components count as 0). nullopt when
/// either is not dotted digits.
std::optional<int> compare_versions(std::string_view a, std::string_view b);

/// "-gencode arch=compute_NN,code=sm_NN" for a SASS architecture.
std::string gencode_sass(const Arch& a);

}  // namespace cuwheel::check::rule_impl::device
