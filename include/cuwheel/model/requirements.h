// cuwheel: what a wheel says about the CUDA it needs, in its name, its
// version and its Requires-Dist (PEP 508), and the $ORIGIN path from one
// of its members to a folder of site-packages. Pure functions of the model;
// the check rules and `repair` read them.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuwheel/cuda/libclass.h"
#include "cuwheel/model/model.h"

namespace cuwheel::model {

/// A Requires-Dist entry that names an NVIDIA CUDA distribution, directly or
/// through `cuda-toolkit[extra]`.
struct Declared {
  std::string distribution;  ///< normalized, as in libclass ("nvidia-cuda-runtime")
  int cuda_major = 0;        ///< 12 or 13
  std::string requirement;   ///< the Requires-Dist text that declares it
  std::vector<std::string> behind_extras;  ///< extras it sits behind (empty: unconditional)
  bool major_certain = true; ///< false for an unversioned cuda-toolkit[...] (declared for both majors)
  bool via_all = false;      ///< from cuda-toolkit[all]
};

/// Everything the wheel's Requires-Dist says about NVIDIA packages.
struct Requirements {
  std::vector<Declared> declared;
  /// Packages that a declared NVIDIA package itself requires (nvidia-cudnn-cu13
  /// requires nvidia-cublas): installed with it, never reported as unused.
  std::vector<Declared> implied;
  /// Requires-Dist entries naming a deprecated `-cu13` placeholder: (text, distribution).
  std::vector<std::pair<std::string, Distribution>> deprecated;
  /// Declared, or implied by a declared NVIDIA package.
  bool has(const std::string& distribution) const;
  const Declared* find(const std::string& distribution) const;
};
Requirements read_requirements(const CheckModel& m);

/// The CUDA major the wheel claims by its name ("-cu12", "cuda12x",
/// "cuda13"), its local version label ("+cu130"), or nullopt.
std::optional<int> name_major(const CheckModel& m);
/// The same for a distribution name ("librmm-cu12" -> 12).
std::optional<int> name_major_of(const std::string& distribution);
std::optional<int> version_major(const CheckModel& m);

/// The normalized distribution name of the wheel ("" when unknown).
std::string wheel_name(const CheckModel& m);

/// The DT_RUNPATH entry that finds `dir` (a folder relative to
/// site-packages, '/'-separated; "" or "." is site-packages itself) from the
/// library `member` once installed:
/// "$ORIGIN/../../torch/lib" for member "torchaudio/lib/_torchaudio.so".
/// A wheel's `NAME.data/purelib/` and `NAME.data/platlib/` prefixes are
/// where the installer puts them (PEP 427, "Installing"): site-packages.
std::string origin_path_to(const std::string& member, const std::string& dir);

/// True when this wheel is itself the NVIDIA distribution that ships `soname`
/// (nvidia-cublas ships libcublas.so.13), or ships files under the folder of
/// the NVIDIA distribution it is.
bool provided_by_self(const CheckModel& m, const std::string& member, const std::string& soname);

/// The CUDA major a wheel claims, for names that fit several majors: the
/// policy's (`policy_major`), then the name's, then the version label's,
/// then that of the Requires-Dist entries when they name one major only.
std::optional<int> claimed_major(const CheckModel& m, std::optional<int> policy_major, const Requirements& reqs);

/// The CUDA majors (12, 13) whose pip packages provide the library `c`
/// names, narrowed to `claim` when it is one of several.
std::vector<int> candidate_majors(const LibraryClass& c, std::optional<int> claim);

}  // namespace cuwheel::model
