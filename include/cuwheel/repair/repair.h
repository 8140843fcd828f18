// cuwheel: `cuwheel repair`, the CUDA-aware repair of a wheel, as a plan and
// an apply.
//
// plan_repair() reads one wheel's model (model/model.h) and the loader's
// resolution of every DT_NEEDED (model/loading.h) and works out, without
// writing anything:
//   1. NVIDIA driver libraries (libcuda, libnvidia-*, the toolkit's stub
//      libcuda.so) shipped in the wheel are removed, and every DT_NEEDED
//      that named a renamed copy names the driver's soname again;
//   2. CUDA libraries that NVIDIA's pip packages provide
//      (cuda/libclass.h) are not shipped: a copy, grafted or not
//      (auditwheel's libcudart-53d54daa.so.12.6.68, torchvision's
//      libcudart.3eda8113.so.13), is removed, DT_NEEDED and its
//      .gnu.version_r file name restored together, the library's search
//      path points into the package's folder of the per-major layout
//      (cuda-facts.md sections 4 and 7: nvidia/cuda_runtime/lib for CUDA 12,
//      nvidia/cu13/lib for CUDA 13, nvidia/nccl/lib ...), relative to each
//      library's own folder, and Requires-Dist gains the package with the
//      floor its versioned symbols need and a cap at its next ABI major;
//   3. every other library the loader would not find is grafted as
//      auditwheel grafts it: found on this machine (the library's own
//      absolute search entries, LD_LIBRARY_PATH, ld.so.cache, the default
//      folders), copied to `<dist>.libs/<stem>-<8 hex of its SHA-256>.<ext>`
//      with that DT_SONAME, and the DT_NEEDED entries naming it renamed
//      with their version needs;
//   4. absolute and build-tree search entries (build-machine-path) are
//      dropped, a version-needs file that DT_NEEDED no longer names
//      (needed-version-mismatch) follows DT_NEEDED, a deprecated -cu13
//      package name is replaced and a too-low floor raised;
//   5. the platform tag becomes the most compatible manylinux tag that the
//      symbol versions allow (wheel/manylinux.h), or the one asked for.
// Each step is simulated on a copy of the model and the loader's
// resolution run again, until every name is found or nothing more can be
// done (a library that is found nowhere is a problem of the plan).
//
// apply_repair() writes the result: the edited libraries (repair/
// elfedit.h), the grafted copies, the new METADATA and WHEEL, every other
// member copied raw (wheel/writer.h), RECORD regenerated, the output
// atomic. The input is only read.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cuwheel/base/expected.h"
#include "cuwheel/base/diagnostic.h"
#include "cuwheel/model/model.h"
#include "cuwheel/model/providers.h"
#include "cuwheel/repair/elfedit.h"

namespace cuwheel::repair {

/// What the caller asks for.
struct RepairOptions {
  /// --plat: the platform tag to write ("manylinux_2_28_x86_64"); nullopt:
  /// keep a manylinux tag the libraries satisfy, else the most compatible.
  std::optional<std::string> plat;
  /// --exclude: fnmatch(3) patterns of sonames left outside the wheel:
  /// never grafted, and given no search path or Requires-Dist.
  std::vector<std::string> exclude;
  /// The tag of a search path that repair writes. keep: the tag the
  /// library has, DT_RPATH for a library that has none (auditwheel's and
  /// PyTorch's choice: it also serves the libraries it loads, and
  /// LD_LIBRARY_PATH does not override it); rpath/runpath: that tag on
  /// every library whose search path repair writes (--rpath, --runpath).
  enum class Tag { keep, rpath, runpath } tag = Tag::keep;
  /// The policy's CUDA major, when it names one (for names of several).
  std::optional<int> cuda_major;
  /// Folders searched first for libraries to graft (LD_LIBRARY_PATH).
  std::vector<std::string> library_path;
  /// Read ld.so.cache and the default folders for grafts (tests turn it off).
  bool system_search = true;
};

/// One DT_NEEDED of one library, as the plan sees it.
struct NeededEntry {
  std::string member;   ///< the library
  std::string needed;   ///< the DT_NEEDED name in the input
  std::string after;    ///< the name in the output (== needed unless renamed)
  /// system, driver, cuda, wheel (a member of the wheel), grafted,
  /// dependency (put in the process by a declared dependency), python (loaded
  /// by the package's Python code), excluded, unresolved.
  std::string kind;
  std::string provider; ///< who provides it, in words
};

/// A search path written (or an entry dropped).
struct SearchPathChange {
  std::string member;
  std::string tag_before, before;  ///< "DT_RUNPATH", "$ORIGIN:/usr/local/cuda/lib64" ("" when none)
  std::string tag, after;
  std::vector<std::string> reasons;
};

struct NeededChange {
  std::string member, from, to;  ///< to "" for a removal
  std::string reason;
};

struct RemovedMember {
  std::string member, reason;
};

struct GraftedLibrary {
  std::string source;  ///< the file on this machine
  std::string member;  ///< "<dist>.libs/libfoo-0123abcd.so.1"
  std::string soname;  ///< its new DT_SONAME
  std::string needed;  ///< the name it was NEEDED by
  std::string reason;
};

struct RequirementChange {
  std::string before;       ///< the Requires-Dist value replaced ("" for an addition)
  std::string requirement;  ///< the new value
  std::string reason;
};

/// The whole plan for one wheel.
struct RepairPlan {
  std::string input;                 ///< the wheel's path
  std::string output_name;           ///< the output's file name
  std::vector<NeededEntry> needed;
  std::vector<SearchPathChange> search_paths;
  std::vector<NeededChange> needed_changes;
  std::vector<RemovedMember> removed;
  std::vector<GraftedLibrary> grafted;
  std::vector<RequirementChange> requirements;
  std::vector<std::string> platform_tags;  ///< of the output's file name
  std::string platform_reason;             ///< why that tag
  bool retagged = false;                   ///< WHEEL is rewritten: the platform tags change, or its Tag lines or Build field differ from the file name's
  /// What the plan cannot fix ("DT_NEEDED libfoo.so.1 of pkg/_ext.so is
  /// found neither in the wheel nor on this machine"). The output would
  /// still fail the check.
  std::vector<std::string> problems;
  /// The ELF edits, per member (grafted copies under their new member).
  std::map<std::string, ElfEdits> edits;
  /// True when the output differs from the input.
  bool changes() const;
};

/// Plans the repair of one wheel (CheckModel::Kind::wheel, read with
/// member hashes). `findings` are the check rules' findings on it
/// (check::run_rules), whose Fix fields (base/diagnostic.h) name the
/// search entries, version needs and requirements to change; `providers`
/// says which libraries declared dependencies put in the process
/// (model/providers.h). Errors: the input is not a wheel; it could not be
/// read in full (CheckModel::read_errors: repairing from partial facts
/// would drop what was not read); --plat is not a manylinux tag of the
/// wheel's architecture, or the libraries need more than it allows (the
/// message names the library and the symbol version).
Expected<RepairPlan> plan_repair(const model::CheckModel& m, const std::vector<Diagnostic>& findings,
                                 const model::Providers& providers, const RepairOptions& options);

/// Checks a --plat value: one manylinux platform tag (PEP 600
/// manylinux_2_<minor>_<arch>, or the legacy alias manylinux1/2010/2014 of
/// 2_5, 2_12, 2_17) of a known architecture whose glibc is a policy of the
/// table (wheel/manylinux.h). The error says what is wrong.
Status validate_plat(const std::string& tag);

/// Writes the repaired wheel to `out` (a path; its folder must exist),
/// atomically. A plan without changes copies the input's bytes. Members
/// that do not change are copied raw after their RECORD hash is checked.
/// Temporary files go beside `out` and are removed. Errors name the member
/// and the step: a member that cannot be read, an ELF edit that fails, a
/// grafted file that cannot be read, a write error. `out` must not be the
/// input. `timestamp`: seconds since the epoch for every entry
/// (SOURCE_DATE_EPOCH's meaning; the default is 1980-01-01).
Status apply_repair(const model::CheckModel& m, const RepairPlan& plan, const std::string& out,
                    uint64_t timestamp = 315532800);

/// The `auditwheel repair --exclude` arguments that keep auditwheel from
/// grafting what this plan leaves outside the wheel: every DT_NEEDED the
/// plan classes driver, cuda, dependency, python, plugin or excluded (by
/// the name it has after repair: "libcudart.so.12", "libcuda.so.1",
/// torch's "libc10.so"), and the real sonames of the copies it removes
/// (auditwheel matches --exclude against sonames with fnmatch), sorted.
std::vector<std::string> auditwheel_excludes(const model::CheckModel& m, const RepairPlan& plan);

}  // namespace cuwheel::repair
