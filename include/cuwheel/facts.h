// cuwheel: load-time facts of a library, and summaries that `show` and the
// check rules share.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cuwheel/bytes.h"
#include "cuwheel/devicecode.h"
#include "cuwheel/elf.h"
#include "cuwheel/expected.h"
#include "cuwheel/libclass.h"
#include "cuwheel/metadata.h"
#include "cuwheel/wheel.h"

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
