// cuwheel: how the dynamic loader finds the libraries of one input.
//
// ld.so(8) and glibc's elf/dl-load.c (_dl_map_object) look a DT_NEEDED name
// up in this order:
//   1. an object already in the link map whose DT_SONAME (or file name) is
//      that name: no search at all;
//   2. a name with a '/' is opened as written;
//   3. unless the requesting object has DT_RUNPATH: the DT_RPATH of the
//      requesting object, then the DT_RPATH of the object that loaded it,
//      and so on up the loading chain (l_loader), then the executable's;
//   4. LD_LIBRARY_PATH (never part of a wheel: left out here);
//   5. the requesting object's own DT_RUNPATH (not its loaders');
//   6. ld.so.cache and the default folders (the system and the driver).
// Dependencies are mapped breadth first: every DT_NEEDED of an object is
// mapped before the DT_NEEDED of those are looked up, so a sibling mapped
// first satisfies a later lookup by name (step 1).
// Reproduced in repair-probe-packaging-facts.md, appendix E3: DT_RUNPATH on
// an extension does not serve its dependencies' dependencies, DT_RPATH does.
//
// This header holds that order once, for every rule and command that asks
// "does this library load": the install layout of an input (where each
// member lands in site-packages), its RPATH/RUNPATH entries resolved to
// folders, and resolve_loads(), which simulates the loader from each
// library of the input.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cuwheel/model/model.h"

namespace cuwheel::model {

/// The member's path relative to the install root (site-packages): a wheel's
/// `<name>.data/purelib/` and `.data/platlib/` prefixes are removed
/// (PEP 427, "Installing a wheel"). nullopt for members of other `.data`
/// schemes (scripts, headers, data), which do not install into
/// site-packages.
std::optional<std::string> install_path(const std::string& member);

/// Lexically normalizes a relative path ("a/./b/../c" -> "a/c"). Returns
/// nullopt when `..` climbs above the root.
std::optional<std::string> normalize_relative(const std::string& path);

/// The directory part of an install path ("a/b/c.so" -> "a/b", "c.so" -> "").
std::string dir_of(const std::string& path);

/// One DT_RPATH / DT_RUNPATH entry, resolved against the library's folder.
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

/// Which files an input puts where: install-relative directory -> names
/// (member file names and the DT_SONAMEs of the libraries in it).
struct Tree {
  std::map<std::string, std::set<std::string>> files;
  std::set<std::string> dirs;  ///< every directory holding a member, with its parents
  bool provides_dir(const std::string& dir) const { return dirs.count(dir) > 0; }
  bool has_file(const std::string& dir, const std::string& name) const;
};
Tree build_tree(const CheckModel& m);

/// True when the library is a shared object or executable whose loading
/// facts apply (an ELF file that is not a member of a static archive and
/// not a relocatable object).
bool loadable(const LibraryModel& lib);

/// True when an NVIDIA pip package whose library folder is `dir`
/// (install-relative: "nvidia/cu13/lib", "nvidia/nccl/lib") installs a file
/// named `name` (cuda/libclass.h tables; cuda-facts.md sections 4 and 7).
bool nvidia_folder_has(const std::string& dir, const std::string& name);

/// How one DT_NEEDED entry of one library is found.
struct NeededResolution {
  enum class How {
    system,        ///< glibc, the compiler runtime, the manylinux baseline (ld.so.cache)
    driver,        ///< a library of the installed NVIDIA driver (ld.so.cache)
    as_path,       ///< the name holds a '/': opened as written
    own_path,      ///< the library's own DT_RUNPATH or DT_RPATH, into a folder of the input
    nvidia_folder, ///< the library's own DT_RUNPATH or DT_RPATH, into an NVIDIA package's folder
    loader_rpath,  ///< the DT_RPATH of an object up the loading chain
    loaded,        ///< a library of the input with that name, mapped earlier in the same load
    unresolved,    ///< none of the above
  };
  How how = How::unresolved;
  std::string entry;  ///< own_path, nvidia_folder, loader_rpath: the RPATH/RUNPATH entry as written
  std::string tag;    ///< its tag, "DT_RPATH" or "DT_RUNPATH"
  std::string dir;    ///< the install-relative folder it was found in
  /// loader_rpath: the member whose DT_RPATH served; loaded: the member
  /// of the library mapped earlier, and `via` the member that loaded it.
  std::string by;
  std::string via;
};

/// The resolution of every DT_NEEDED of every loadable library of an input
/// with a known install path.
struct LoadResolution {
  /// Per index into CheckModel::libraries (empty for libraries left out),
  /// one entry per DT_NEEDED, in DT_NEEDED order.
  std::vector<std::vector<NeededResolution>> needed;
  /// One entry per load simulated (one per root): the indices of the
  /// libraries it mapped, root first, in mapping order. Two libraries
  /// share a link map (and can interpose on each other's symbols) only
  /// when some load maps both.
  std::vector<std::vector<size_t>> link_maps;
  /// Per index into CheckModel::libraries: why the library is a plugin
  /// that is opened with dlopen only when it is chosen at run time (a
  /// transport, backend or execution provider), or "" when it is not one
  /// (plugin_evidence()).
  std::vector<std::string> plugin;
};

/// The last component of an install-relative path ("torch/lib/libc10.so" ->
/// "libc10.so").
std::string file_name(const std::string& path);

/// True when `lib`, whose file name is `file`, is a Python extension
/// module: a `.cpython-*`, `.abi3.` or `.pypy` file name, or a `PyInit_`
/// export (PEP 3149, PEP 384; triton/_C/libtriton.so has only the export).
bool python_extension_module(const LibraryModel& lib, const std::string& file);

/// Why library `i` of `m` is a plugin: no library of the input NEEDs it,
/// it is no Python extension module (no `.cpython-*`/`.abi3` file name,
/// no `PyInit_` export), and its file name is named by another library of
/// the input (LibraryModel::library_strings, printf conversions as
/// wildcards: nvshmem's "nvshmem_transport_%s.so.%d") or by the wheel's
/// Python code (a quoted file name, or an f-string family such as
/// bitsandbytes' f"libbitsandbytes_{...}"). "" when any of that fails.
std::string plugin_evidence(const CheckModel& m, size_t i);

/// Simulates the loader (the order in the header comment) from each
/// loadable library of `m` as a root, as if Python or ctypes had opened it
/// by path: the root's dependencies are mapped breadth first, each found
/// through its requester's search entries, the DT_RPATH of the requester's
/// loaders, or a library already mapped in that load. A name counts as
/// found when any of these loads finds it (a library that only one
/// extension module loads is resolved as that module loads it); the best
/// way found is kept, in the order of How. Names of the system and the
/// driver (cuda/libclass.h) are not searched. Pure: reads only `m` and
/// `tree` (build_tree(m)).
LoadResolution resolve_loads(const CheckModel& m, const Tree& tree);

}  // namespace cuwheel::model
