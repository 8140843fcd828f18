// cuwheel: the `cuwheel list` report of one object's device code: text
// (a head line, then one line per entry) and JSON (docs/json-schema.md,
// "list", schema 1). The cuobjdump-identical format is render/cuobjdump.h.
// Pure functions: nothing is read or printed here.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cuwheel/model/inputs.h"
#include "cuwheel/object/devicecode.h"

namespace cuwheel::render {

/// Which entries are listed: --elf (SASS), --ptx, both or neither (all
/// kinds), and --all (also relocatable fatbins and containers outside
/// .nv_fatbin that no wrapper record references, as `cuobjdump -all`).
struct ListSelection {
  bool elf = false;
  bool ptx = false;
  bool all = false;
};

/// Whether `e` of `dc` is listed under `sel`: without --all, a host ELF
/// with an executable fatbin lists only executable entries (cuobjdump's
/// rule, docs/architecture.md "Finding device code in a host ELF").
bool list_selected(const ListSelection& sel, const DeviceCode& dc, const EntryFacts& e);

/// One object as JSON: path, member, archive_member, distribution,
/// containers, and the selected entries (kind, arch, sm, suffix, ptx_isa,
/// cubin ABI and arch, compression, stored size and size in bytes, offset
/// of the entry in the object, section, origin, via_wrapper, debug).
nlohmann::ordered_json list_object_json(const ObjectRef& obj, const DeviceCode& dc, const ListSelection& sel);

/// One object as text: "PATH: N SASS, M PTX in K containers" (saying what
/// --elf/--ptx leave out and what only --all adds), then a line per
/// selected entry. "" for an object of a wheel or folder (`plain` false)
/// without device code, which is left out. Names go through printable().
std::string render_list_text(const ObjectRef& obj, const DeviceCode& dc, const ListSelection& sel, bool plain);

}  // namespace cuwheel::render
