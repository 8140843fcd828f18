// cuwheel: load-time facts of a library, and summaries that `show` and the
// check rules share.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/bytes.h"
#include "cuwheel/object/devicecode.h"
#include "cuwheel/object/elf.h"
#include "cuwheel/base/expected.h"
#include "cuwheel/cuda/libclass.h"
#include "cuwheel/wheel/metadata.h"
#include "cuwheel/wheel/wheel.h"

namespace cuwheel {

/// How an ELF file gets the CUDA runtime.
struct CudaRuntime {
  enum class Kind { none, shared, static_runtime, is_runtime } kind = Kind::none;
  int major = 0;          ///< from libcudart.so.N (shared) or the file's own soname
  std::string soname;     ///< the NEEDED entry, for shared
  std::string evidence;   ///< what showed a static runtime ("symbol libcudart_static_*", ...)
};

/// Facts the dynamic loader uses (ELF gABI dynamic section; ld.so(8)).
struct LoadFacts {
  bool is64 = true;
  uint16_t type = 0, machine = 0;
  std::optional<std::string> soname;
  std::vector<std::string> needed;   ///< DT_NEEDED, in order
  std::vector<std::string> rpath;    ///< DT_RPATH entries (split on ':')
  std::vector<std::string> runpath;  ///< DT_RUNPATH entries
  std::vector<elf::VersionNeed> version_needs;  ///< .gnu.version_r
  CudaRuntime runtime;
};

/// Reads the load-time facts of an ELF file. Static CUDA runtime detection:
/// a `libcudart_static_*` symbol, or cudart's error-name table string
/// ("cudaErrorCudartUnloading") in `.rodata` of a file that does not NEED
/// libcudart and is not libcudart itself. Errors: not a readable ELF file.
/// `done`, when set, receives the large tables once scanned (`.strtab`,
/// `.rodata`) so a caller can let their pages go (Blob::release).
Expected<LoadFacts> read_load_facts(ByteView data, WarningSink* warnings,
                                    const std::function<void(ByteView)>& done = {});

/// The same for an ELF file already parsed; cannot fail (what cannot be
/// read of the version needs goes to `warnings`).
LoadFacts read_load_facts(const elf::File& file, WarningSink* warnings,
                          const std::function<void(ByteView)>& done = {});

/// A CUDA release, major.minor ("12.4").
struct CudaRelease {
  int major = 0, minor = 0;
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
  auto operator<=>(const CudaRelease&) const = default;
};

/// An undefined dynamic symbol bound to a symbol version of a CUDA toolkit
/// library: ld.so resolves it only in a file that defines that name at that
/// version (ELF gABI symbol versioning, .gnu.version/.gnu.version_r), and
/// otherwise stops with "undefined symbol: NAME, version VER".
struct CudaSymbolNeed {
  std::string symbol;   ///< "__nvJitLinkComplete_12_4"
  std::string version;  ///< version node, "libnvJitLink.so.12"
  std::string file;     ///< the file of the version need, "libnvJitLink.so.12"
  /// The first CUDA release whose library exports the symbol, when the
  /// symbol's name says so (see symbol_release()); nullopt otherwise.
  std::optional<CudaRelease> first_release;
};

/// The first CUDA release that exports `symbol` from the CUDA library
/// `file`, as far as the name encodes it. NVIDIA's libraries version every
/// symbol with a single node named after the soname (readelf -V on the
/// CUDA 12 and 13 libraries: libcublasLt.so.13, libcusparse.so.12 and
/// libnvJitLink.so.13 each define only the node `<soname>`), so the version
/// node says nothing about the release. nvJitLink alone names its entry
/// points after the release whose header declared them: nvJitLink.h maps
/// `nvJitLinkCreate` to `__nvJitLinkCreate_<major>_<minor>`, and each
/// release keeps exporting the names of every earlier release of its major
/// (nvidia-nvjitlink-cu12 12.1.105 exports the `_12_0` and `_12_1` names,
/// 12.4.127 `_12_0` to `_12_4`, 12.9.86 `_12_0` to `_12_9`;
/// scripts/cuda_symbol_releases.py regenerates this from wheels). Returns the
/// release for a name ending in `_<major>_<minor>` whose major is the
/// soname's major (`file` "libnvJitLink.so.12" and "..._12_4" -> 12.4);
/// nullopt for every other symbol.
std::optional<CudaRelease> symbol_release(std::string_view symbol, std::string_view file);

/// The undefined dynamic symbols of `dynsyms` (File::dynamic_symbols())
/// bound to a version need of a CUDA toolkit library (classify_soname():
/// cuda_toolkit), each with symbol_release(); sorted by file, then symbol,
/// without duplicates.
std::vector<CudaSymbolNeed> cuda_symbol_needs(const std::vector<elf::Symbol>& dynsyms);

/// The architectures and sizes of a library's device code, for summaries.
struct DeviceSummary {
  size_t entries = 0;
  std::vector<std::string> sass;        ///< "sm_75", "sm_90a", "sm_100f" sorted by SM, unique
  std::vector<std::string> ptx;         ///< "compute_120" sorted, unique
  std::vector<std::string> ptx_isa;     ///< "9.0", parallel to `ptx` (highest ISA seen for it)
  std::vector<std::string> ltoir;       ///< "lto_90"
  std::vector<std::string> compression; ///< subset of {"none","lz4","zstd"} seen
  size_t kernels = 0;                   ///< distinct kernel names (SASS; PTX when no SASS)
  bool kernels_known = false;           ///< false when payloads were not decoded
  uint64_t stored_bytes = 0;            ///< bytes of device code stored in the file
  /// Sections other than the fatbin sections where the strict scan found
  /// containers (fatbin::Origin::data: code the library loads itself, as
  /// libcufft.so.12 does from `.ldata`), with the number of containers
  /// in each, in the order first seen. Their entries count above too.
  std::vector<std::pair<std::string, size_t>> data_sections;
};

/// Summarises device code read at any Depth (kernels need Depth::full).
/// Entries in relocatable fatbins are included.
DeviceSummary summarize(const DeviceCode& dc);

/// Sort key for architecture names: SM number, then "", "a", "f".
bool arch_less(const std::string& a, const std::string& b);

/// A wheel's identity and requirements (PEP 427 file name, WHEEL, METADATA).
struct WheelSummary {
  std::string filename;
  std::string name, version;           ///< from METADATA
  std::string metadata_version;
  std::optional<std::string> requires_python;
  std::vector<std::string> filename_tags;  ///< expanded from the file name
  std::vector<std::string> wheel_tags;     ///< `Tag:` lines of WHEEL
  std::vector<std::string> requires_dist;
  std::vector<std::string> provides_extra;
  std::string dist_info;                   ///< "name-1.0.dist-info"
};

/// Reads the summary of an open wheel. Errors: no single .dist-info, a
/// missing or unreadable METADATA/WHEEL; messages name the wheel and member.
Expected<WheelSummary> read_wheel_summary(Wheel& wheel, WarningSink& warnings);

}  // namespace cuwheel
