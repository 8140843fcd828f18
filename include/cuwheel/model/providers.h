// cuwheel: which distributions provide a shared library that a wheel NEEDs
// without shipping it.
//
// A DT_NEEDED name is found by the loader without any search once an object
// of that DT_SONAME is in the process (ld.so(8); glibc elf/dl-load.c,
// _dl_map_object, step 1 in model/loading.h). Frameworks rely on it: a torch
// extension NEEDs libtorch.so and libc10.so with no RUNPATH, because
// `import torch` has loaded them, and libcudart.so.13, because torch's
// libraries NEED it and find it in NVIDIA's folder; RAPIDS packages preload
// their libraries (librmm, libraft) the same way. Whether such a NEEDED is
// harmless therefore depends on the wheel declaring (Requires-Dist, PEP 508)
// the distribution that puts the library in the process.
//
// What a distribution provides comes from three places, in this order of
// trust: a wheel of it given to the run (its shared-library members, and
// the NVIDIA libraries its libraries NEED and find), the built-in table of
// large frameworks below (docs/library-classes.md, "Framework libraries",
// says where each entry comes from), and NVIDIA's own packages
// (cuda/libclass.h).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/model/model.h"

namespace cuwheel::model {

/// One distribution that puts a library in the process.
struct Provider {
  std::string distribution;  ///< PEP 503 normalized name ("torch", "librmm-cu12")
  std::string folder;        ///< install-relative folder of the file ("torch/lib"); "" when it only loads it
  /// True when the distribution ships the file (its libraries are there to
  /// be found by folder); false when its libraries NEED it and the loader
  /// finds it elsewhere (torch loads libcudart.so.13 from NVIDIA's folder).
  bool ships = true;
  std::string source;        ///< where the fact comes from ("torch 2.15.0 wheel (built-in table)", "wheel x.whl")
  /// Which of the three places: a wheel checked in the same run, a
  /// dependency wheel given apart (--deps), the built-in table.
  enum class From { run, deps, builtin } from = From::builtin;
  /// A generic runtime the distribution happens to ship (torch's
  /// libgomp.so.1): found once it is loaded, but no reason to depend on it.
  bool generic = false;
};

/// Sonames (DT_SONAME, or the file name where a library has none) to the
/// distributions that provide them.
class Providers {
 public:
  /// The built-in table of framework libraries: torch (its own libraries in
  /// torch/lib and the CUDA libraries its CUDA 12 and CUDA 13 builds NEED),
  /// and the RAPIDS C++ libraries (librmm, libraft, libcudf, libcuvs,
  /// libkvikio, rapids-logger, each in <pkg>/lib64, -cu12 and -cu13).
  static Providers builtin();

  /// Adds what the wheel of `m` provides: each loadable library of it by
  /// file name and DT_SONAME (ships), and each NEEDED name one of them has
  /// (loads: in the process once that library is), except the system's
  /// and the driver's libraries (cuda/libclass.h), under
  /// the distribution named by its METADATA (or file name). `source`
  /// describes the wheel in messages. A model that is not a wheel adds
  /// nothing.
  void add_wheel(const CheckModel& m, const std::string& source, Provider::From from);

  void add(const std::string& soname, Provider p);

  /// Every provider of `soname`, wheels given to the run first, then the
  /// built-in table; empty when none is known.
  std::vector<const Provider*> find(const std::string& soname) const;

  /// True when some wheel given to the run is a distribution of this name
  /// (its facts then replace the built-in table's for that distribution).
  bool has_wheel_of(const std::string& distribution) const;

 private:
  std::map<std::string, std::vector<Provider>> by_soname_;
  std::map<std::string, bool> wheel_dists_;
};

}  // namespace cuwheel::model
