// Helpers shared by the device-code rules (CW1xx): how an entry and a
// library are named in a message.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/check/check.h"
#include "cuwheel/cuda/arch.h"

namespace cuwheel::check::rule_impl::device {

// Architecture names are parsed by arch::Arch::parse and the
// compatibility rules are arch::sass_runs_on / arch::ptx_runs_on
// (cuwheel/cuda/arch.h, cuwheel/cuda/compat.h).
using arch::Arch;

/// The SASS name of a cubin entry, named as summarize() names it: the
/// cubin's own SM and 'a' when read, else the entry header's, plus 'f' from
/// the header (the cubin never records 'f').
std::string entry_sass_name(const EntryFacts& e);

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

/// "-gencode arch=compute_NN,code=sm_NN" for a SASS architecture.
std::string gencode_sass(const Arch& a);

}  // namespace cuwheel::check::rule_impl::device
