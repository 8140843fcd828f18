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
#include "cuwheel/model/loading.h"
#include "cuwheel/model/requirements.h"

namespace cuwheel::check::rule_impl::loading {

// The install layout and the loader's search order live in the model layer
// (model/loading.h), where every rule and command reads them.
using model::all_entries;
using model::dir_of;
using model::install_path;
using model::normalize_relative;
using model::search_entries;
using model::SearchEntry;


// What a wheel's Requires-Dist and name say about CUDA, and the $ORIGIN
// path to a folder, live in the model layer (model/requirements.h), where
// `repair` reads them too.
using model::Declared;
using model::name_major;
using model::name_major_of;
using model::origin_path_to;
using model::provided_by_self;
using model::read_requirements;
using model::Requirements;
using model::version_major;
using model::wheel_name;

using model::build_tree;
using model::loadable;
using model::Tree;

/// The distributions the wheel declares (any Requires-Dist, behind an extra
/// or not, its own name left out), PEP 503-normalized, with the text that
/// declares each.
std::map<std::string, std::string> declared_distributions(const CheckModel& m);

/// A provider of `soname` (model/providers.h) that the wheel declares, or
/// nullptr: the name is in the process once that dependency is loaded.
const model::Provider* declared_provider(const Context& ctx, const std::map<std::string, std::string>& declared,
                                         const std::string& soname);

/// True when the loader never consults the search entry `pos` of
/// `searched` (library `li`'s own entries, model::search_entries) for a
/// name that a folder could supply: every DT_NEEDED of the library is the
/// system's or the driver's, was mapped already or found through a
/// loader's DT_RPATH, is put in the process by a declared dependency, or
/// is found through an entry before `pos`. A `pos` past the end (an entry
/// the loader does not search, DT_RPATH beside DT_RUNPATH) is never
/// consulted. False for inputs that are not wheels.
bool entry_never_decides(const Context& ctx, const model::LoadResolution& loads, size_t li,
                         const std::vector<SearchEntry>& searched, size_t pos,
                         const std::map<std::string, std::string>& declared);

/// The position of `e` in `searched` (same tag and text), or searched.size().
size_t search_position(const std::vector<SearchEntry>& searched, const SearchEntry& e);

/// The NVIDIA distributions whose folder is `dir` (install-relative), any major.
std::vector<Distribution> distributions_in(const std::string& dir);

/// The CUDA majors a site-packages folder belongs to when only one major
/// uses it ("nvidia/cu13/lib" -> 13, "nvidia/cuda_runtime/lib" -> 12);
/// nullopt for shared folders ("nvidia/nccl/lib") and others.
std::optional<int> folder_major(const std::string& dir);



/// What a message calls the package being checked: "distribution" for one
/// installed in a site-packages folder, "wheel" otherwise.
const char* package_noun(const CheckModel& m);



/// Joins up to `max` items with ", " and adds "and N more".
std::string join_some(const std::vector<std::string>& items, size_t max = 5);

}  // namespace cuwheel::check::rule_impl::loading
