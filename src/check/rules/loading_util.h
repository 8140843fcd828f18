// Helpers shared by the loading rules (src/check/rules/*.cc of group "loading"):
// where a library sits in the install tree, what its RPATH/RUNPATH entries
// resolve to, and which NVIDIA distributions the wheel's Requires-Dist
// declares. Pure functions of the model; no I/O.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cuwheel/check/check.h"
#include "cuwheel/cuda/libclass.h"

namespace cuwheel::check::rule_impl::loading {

/// The member's path relative to the install root (site-packages): a wheel's
/// `<name>.data/purelib/` and `.data/platlib/` prefixes are removed. nullopt
/// for members of other `.data` schemes (scripts, headers, data), which do
/// not install into site-packages.
std::optional<std::string> install_path(const std::string& member);

/// Lexically normalizes a relative path ("a/./b/../c" -> "a/c"). Returns
/// nullopt when `..` climbs above the root.
std::optional<std::string> normalize_relative(const std::string& path);

/// One DT_RPATH / DT_RUNPATH entry, resolved.
struct SearchEntry {
  std::string raw;          ///< as written
  std::string tag;          ///< "DT_RPATH" or "DT_RUNPATH"
  enum class Kind { origin, absolute, relative, empty } kind = Kind::origin;
  bool escapes = false;     ///< origin: `..` climbs out of the install tree
  std::string dir;          ///< origin, not escaping: directory relative to the install root ("" = root)
};

/// The entries the loader searches for `lib`'s own DT_NEEDED: DT_RUNPATH
/// when present, else DT_RPATH. `where` is the library's directory
/// relative to the install root (nullopt when unknown: a plain file).
std::vector<SearchEntry> search_entries(const LibraryModel& lib, const std::optional<std::string>& where);
/// Every entry of both tags (for rules about the entries themselves).
std::vector<SearchEntry> all_entries(const LibraryModel& lib, const std::optional<std::string>& where);

/// The directory part of an install path ("a/b/c.so" -> "a/b", "c.so" -> "").
std::string dir_of(const std::string& path);

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
  /// Requires-Dist entries naming a deprecated `-cu13` placeholder: (text, distribution).
  std::vector<std::pair<std::string, Distribution>> deprecated;
  bool has(const std::string& distribution) const;
  const Declared* find(const std::string& distribution) const;
};
Requirements read_requirements(const CheckModel& m);

/// Which files the wheel puts where: install-relative directory -> names
/// (member file names and the DT_SONAMEs of the libraries in it).
struct Tree {
  std::map<std::string, std::set<std::string>> files;
  std::set<std::string> dirs;  ///< every directory holding a member, with its parents
  bool provides_dir(const std::string& dir) const { return dirs.count(dir) > 0; }
  bool has_file(const std::string& dir, const std::string& name) const;
};
Tree build_tree(const CheckModel& m);

/// True when the library is a shared object or executable whose loading
/// facts apply (an ELF that is not a member of a static archive).
bool loadable(const LibraryModel& lib);

/// The NVIDIA distributions whose folder is `dir` (install-relative), any major.
std::vector<Distribution> distributions_in(const std::string& dir);

/// The CUDA majors a site-packages folder belongs to when only one major
/// uses it ("nvidia/cu13/lib" -> 13, "nvidia/cuda_runtime/lib" -> 12);
/// nullopt for shared folders ("nvidia/nccl/lib") and others.
std::optional<int> folder_major(const std::string& dir);

/// The CUDA major the wheel claims by its name ("-cu12", "cuda12x",
/// "cuda13"), its local version label ("+cu130"), or nullopt.
std::optional<int> name_major(const CheckModel& m);
std::optional<int> version_major(const CheckModel& m);

/// The normalized distribution name of the wheel ("" when unknown).
std::string wheel_name(const CheckModel& m);

/// True when this wheel is itself the NVIDIA distribution that ships `soname`
/// (nvidia-cublas ships libcublas.so.13), or ships files under the folder of
/// the NVIDIA distribution it is.
bool provided_by_self(const CheckModel& m, const std::string& member, const std::string& soname);

/// Joins up to `max` items with ", " and adds "and N more".
std::string join_some(const std::vector<std::string>& items, size_t max = 5);

}  // namespace cuwheel::check::rule_impl::loading
