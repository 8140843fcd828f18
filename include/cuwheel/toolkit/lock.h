// The toolkit lock: a pinned, closed set of RPMs from an NVIDIA-style CUDA
// repository, per named toolkit ("cu12", "cu13", ...).
//
// File format (TOML, written by `cuwheel toolkit lock`, read by download,
// verify and extract; documented for users in docs/toolkit.md):
//
//   schema = 1
//
//   [toolkit.cu12]
//   release = "12.9"                      # CUDA release X.Y
//   repo = "https://developer.download.nvidia.com/compute/cuda/repos/rhel8/x86_64/"
//   key_url = "https://.../D42D0685.pub"  # where the repository key is fetched
//   key_fingerprint = "610C7B14E068A878070D37B54B5A8EC8D42D0685"  # 40 hex, upper case
//   requested = ["cuda-nvcc-12-9", "cuda-cudart-devel-12-9"]
//   external = ["/bin/sh", "gcc-c++"]     # requirements satisfied outside the repo
//
//   [[toolkit.cu12.rpm]]
//   name = "cuda-nvcc-12-9"
//   evr = "12.9.86-1"                     # [epoch:]version-release, epoch omitted when 0
//   arch = "x86_64"
//   location = "cuda-nvcc-12-9-12.9.86-1.x86_64.rpm"   # relative to repo
//   sha256 = "…64 lower-case hex…"
//   size = 123456                         # bytes of the .rpm file
//
// Entries are sorted by name then arch then evr; tables and keys are written
// in a fixed order, so re-locking an unchanged repository rewrites the file
// byte for byte (determinism is a tested property).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cuwheel/base/expected.h"

namespace cuwheel::toolkit {

/// One pinned RPM file.
struct LockedRpm {
  std::string name;      ///< RPM package name, e.g. "cuda-nvcc-12-9"
  std::string evr;       ///< "[E:]V-R"; epoch omitted when 0
  std::string arch;      ///< "x86_64", "noarch", ...
  std::string location;  ///< path relative to the repository base URL (repodata <location href>)
  std::string sha256;    ///< 64 lower-case hex digits of the whole .rpm file
  uint64_t size = 0;     ///< size of the whole .rpm file, bytes
};

/// One named toolkit in the lock.
struct LockedToolkit {
  std::string name;                    ///< lock key: "cu12", "cu13", ...
  std::string release;                 ///< CUDA release "X.Y"
  std::string repo;                    ///< repository base URL or directory (ends with '/')
  std::string key_url;                 ///< URL or path of the ASCII-armoured repository key ("" = none)
  std::string key_fingerprint;         ///< 40 upper-case hex digits ("" = signatures not pinned)
  std::vector<std::string> requested;  ///< package names given to `lock --packages`, sorted
  std::vector<std::string> external;   ///< requirements left to the system, sorted, unique
  std::vector<LockedRpm> rpms;         ///< the closed set, sorted by name, arch, evr
};

/// A whole lock file: toolkits sorted by name.
struct Lock {
  int schema = 1;
  std::vector<LockedToolkit> toolkits;

  /// The toolkit called `name`, or nullptr.
  const LockedToolkit* find(const std::string& name) const;
  /// Inserts or replaces the toolkit with t.name (keeps the others).
  void upsert(LockedToolkit t);
};

/// Reads a lock file. Errors name the file and, for a bad value, the TOML
/// line ("cuwheel.lock:12: rpm entry has no sha256"): unreadable file, TOML
/// syntax, unknown schema, a missing or malformed field (sha256 not 64 hex,
/// size not a non-negative integer, fingerprint not 40 hex).
Expected<Lock> read_lock(const std::string& path);

/// Serialises `lock` in the canonical form described above.
std::string format_lock(const Lock& lock);

/// Writes format_lock(lock) to `path` atomically (temporary file in the same
/// folder, fsync, rename). Errors name the path.
Status write_lock(const std::string& path, const Lock& lock);

}  // namespace cuwheel::toolkit
