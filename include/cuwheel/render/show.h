// cuwheel: the `cuwheel show` report (docs/json-schema.md, "show", schema
// 1): per object the load facts, the CUDA symbol versions it needs and a
// summary of its device code; per wheel its name, version, tags and
// Requires-Dist. The JSON is the one description; the text report is drawn
// from it. Pure functions: nothing is read or printed here.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuwheel/model/facts.h"

namespace cuwheel::render {

/// What `show` reports of one object (an ELF file, an archive member, a
/// raw fatbin or cubin).
struct ShowObject {
  std::string display;         ///< "wheel.whl:pkg/lib.so" (model/inputs.h ObjectRef::display)
  std::string member;          ///< wheel or folder member ("" for a plain file)
  std::string archive_member;  ///< member of a static archive ("" when none)
  std::string owner;           ///< distribution that installed it (installed environments)
  std::optional<LoadFacts> load;              ///< absent for raw fatbins and cubins
  std::vector<CudaSymbolNeed> symbol_needs;   ///< versioned symbols needed from CUDA libraries
  std::optional<DeviceSummary> device;        ///< absent when no device code could be read
  std::vector<std::string> warnings;          ///< the readers' warnings
};

/// The names a NEEDED entry may use to reach an object of the same input:
/// each member's file name and soname -> the member.
std::map<std::string, std::string> bundled_names(const std::vector<ShowObject>& objects);

/// One object as JSON: path, member, elf_type, soname, needed (each with
/// its library class and whether `bundled` holds it), rpath, runpath,
/// cuda_runtime, cuda_symbol_needs, device_code (sass, ptx with ISA,
/// runs_on, compression, kernels) and warnings.
nlohmann::ordered_json show_object_json(const ShowObject& object, const std::map<std::string, std::string>& bundled);

/// A wheel's METADATA and WHEEL facts as JSON.
nlohmann::ordered_json show_wheel_json(const WheelSummary& summary);

/// The text report of one input, from its JSON ({"path", "kind",
/// optional "wheel", "objects", "errors"}): every name from the input goes
/// through printable() (cuwheel/base/bytes.h).
std::string render_show_text(const nlohmann::ordered_json& input);

}  // namespace cuwheel::render
