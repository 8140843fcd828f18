// unresolved-runpath: a relative DT_RPATH/DT_RUNPATH entry that leaves the
// install tree (more `..` than the library's depth below site-packages), that
// is relative to the working directory (no $ORIGIN), or that names a
// directory which neither the wheel (a member under it) nor a declared
// dependency provides. NVIDIA folders come from libclass per CUDA major; a
// dependency counts when Requires-Dist names it, directly, through
// cuda-toolkit[extra], or behind an extra. Other dependencies' folders are
// recognised by their import name (the first path part equals a
// Requires-Dist name with '-' as '_', e.g. torch/lib).
// Findings for escaping entries and for undeclared NVIDIA folders are one
// per library (torch copies its lib/ RPATH onto torch/_C.so, where every
// entry escapes).
//
// An escaping entry, or one naming a folder nothing provides, only matters
// for the names the loader searches it for: when every DT_NEEDED is found
// before it (or needs no search: the system's, the driver's, a declared
// dependency's, already mapped), it is a note (torch's `$ORIGIN/../lib64`
// on protoc, its `cusparselt/lib` fallback behind the folders that hold
// its libraries).
//
// What the loader does search is graded by who could put a file there:
// - a folder under one of the wheel's own top-level folders (gpu4pyscf's
//   `$ORIGIN/deps/lib`, tensorflow's bazel `_solib_*` and `.runfiles`
//   leftovers) that the wheel does not ship: no other distribution
//   installs into it, so nothing is ever found there: a note;
// - an entry that climbs above site-packages (torch's `_C` copies the
//   `$ORIGIN/../../nvidia/...` entries of torch/lib, one level too high):
//   on a normal install that folder is the interpreter's own lib folder,
//   where no package installs libraries: a warning;
// - NVIDIA folders of undeclared packages that no DT_NEEDED is searched
//   for (entries that serve dlopen: jax's plugins, whose packages the
//   framework's extra declares): a warning;
// - a folder another distribution could fill, searched before the entry
//   that finds a DT_NEEDED: a warning (what nothing finds at all is
//   unresolved-needed's error);
// - an NVIDIA folder of an undeclared package that a DT_NEEDED is searched
//   in, and an entry relative to the working directory: an error.
#include <algorithm>
#include <set>

#include "cuwheel/wheel/pep508.h"
#include "dependency_common.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

void unresolved_runpath(const Context& ctx, Emitter& out) {
  const auto& m = ctx.model;
  if (m.kind == CheckModel::Kind::library) return;  // a lone file has no install tree
  const bool wheel = m.is_distribution();  // a wheel, or one installed distribution
  const model::Tree& tree = ctx.tree;
  auto reqs = loading::read_requirements(m);
  auto claim = loading::claimed_major(m, ctx.policy, reqs);
  std::set<std::string> dep_folders;  // import-name guesses of every Requires-Dist entry
  if (m.metadata)
    for (const auto& text : m.metadata->requires_dist)
      if (auto r = Requirement::parse(text)) {
        std::string n = r->normalized_name();
        for (auto& c : n)
          if (c == '-') c = '_';
        dep_folders.insert(n);
      }
  const auto declared = loading::declared_distributions(m);
  const model::LoadResolution& loads = ctx.loads;
  // The wheel's own top-level folders (a member "gpu4pyscf/lib/x.so" makes
  // "gpu4pyscf" one; the .data and .dist-info folders are not).
  std::set<std::string> own_tops;
  for (const auto& mm : m.members) {
    auto where = loading::install_path(mm.name);
    if (!where) continue;
    size_t slash = where->find('/');
    if (slash != std::string::npos && slash > 0) own_tops.insert(where->substr(0, slash));
  }
  auto inside_own = [&](const std::string& dir) {
    size_t slash = dir.find('/');
    return slash != std::string::npos && own_tops.count(dir.substr(0, slash)) > 0;
  };
  for (size_t li = 0; li < m.libraries.size(); ++li) {
    const LibraryModel& lib = m.libraries[li];
    if (!loading::loadable(lib) || lib.member.empty()) continue;
    auto where = loading::install_path(lib.member);
    if (!where) continue;
    std::string dir = loading::dir_of(*where);
    const auto searched = loading::search_entries(lib, dir);
    auto harmless = [&](const loading::SearchEntry& e) {
      return loading::entry_never_decides(ctx, loads, li, searched, loading::search_position(searched, e), declared);
    };
    bool escaping_harmless = true;
    std::set<std::string> seen;
    auto entries = loading::all_entries(lib, dir);
    // Entries that name one folder from several depths ($ORIGIN/../nvidia/cu13/lib
    // and $ORIGIN/../../nvidia/cu13/lib, as jax's plugins do for two layouts)
    // are fallbacks: when one of them resolves, the others are not reported.
    auto tail = [](const std::string& raw) {
      size_t i = raw.find('/');
      if (i == std::string::npos) return std::string();
      std::string t = raw.substr(i + 1);
      while (t.rfind("../", 0) == 0) t = t.substr(3);
      return t;
    };
    std::set<std::string> good_tails;
    for (const auto& e : entries)
      if (e.kind == loading::SearchEntry::Kind::origin && !e.escapes &&
          (tree.provides_dir(e.dir) || !loading::distributions_in(e.dir).empty()))
        good_tails.insert(tail(e.raw));
    std::vector<std::string> undeclared_folders, escaping;
    std::set<std::string> undeclared_dists;
    bool undeclared_harmless = true;
    for (const auto& e : entries) {
      if (!seen.insert(e.tag + e.raw).second) continue;
      const std::string loc = e.tag + " " + e.raw;
      using K = loading::SearchEntry::Kind;
      if (e.kind == K::absolute) continue;  // build-machine-path
      if (e.kind == K::relative || e.kind == K::empty) {
        out.emit(lib.member, loc,
                 e.tag + " entry '" + e.raw + "' is relative to the process's working directory, not to the library",
                 "write it as $ORIGIN/<path> (or remove it)");
        continue;
      }
      if ((e.escapes || !tree.provides_dir(e.dir)) && loading::distributions_in(e.dir).empty() &&
          good_tails.count(tail(e.raw)))
        continue;
      if (e.escapes) {
        escaping.push_back(e.raw);
        escaping_harmless = escaping_harmless && harmless(e);
        continue;
      }
      if (tree.provides_dir(e.dir)) continue;
      auto dists = loading::distributions_in(e.dir);
      if (!dists.empty()) {
        if (!wheel) continue;
        // A folder of the other CUDA major (libraft-cu12 lists
        // nvidia/cu13/lib): CUDA 13's cuSPARSE, cuRAND and cuFILE keep the
        // CUDA 12 sonames (libcusparse.so.12, libcurand.so.10), so searched
        // first it loads the other major's build. One finding per entry.
        if (auto fm = loading::folder_major(e.dir); fm && claim && *fm != *claim) {
          // A library that NEEDs names of that major only (libcudart.so.13
          // in a CUDA 12 wheel) is cuda-major-mismatch's finding.
          bool other_major_names = false;
          for (const auto& n : lib.load.needed) {
            const auto cls = classify_soname(n);
            other_major_names = other_major_names || (cls.kind == LibraryKind::cuda_toolkit && !cls.majors.empty() &&
                                                      cls.majors.contains(*fm) && !cls.majors.contains(*claim));
          }
          if (other_major_names) continue;
          // The names that folder could hold, and those of them that the
          // loader does not find through an entry before it.
          std::vector<std::string> could, exposed;
          const size_t pos = loading::search_position(searched, e);
          for (size_t k = 0; k < lib.load.needed.size(); ++k) {
            // Only names both majors use: libcudart.so.13 in a CUDA 12 wheel
            // is cuda-major-mismatch's finding, not a mix-up of builds.
            const auto cls = classify_soname(lib.load.needed[k]);
            if (!model::nvidia_folder_has(e.dir, lib.load.needed[k]) || cls.kind != LibraryKind::cuda_toolkit ||
                !(cls.majors.empty() || cls.majors.contains(*claim)))
              continue;
            could.push_back(lib.load.needed[k]);
            bool before = false;
            if (k < loads.needed[li].size()) {
              const auto& r = loads.needed[li][k];
              using How = model::NeededResolution::How;
              if (r.how == How::own_path || r.how == How::nvidia_folder) {
                for (size_t i = 0; i < searched.size() && i < pos; ++i)
                  before = before || (searched[i].raw == r.entry && searched[i].tag == r.tag);
              } else {
                before = r.how == How::loaded || r.how == How::loader_rpath || r.how == How::system ||
                         r.how == How::driver || r.how == How::as_path;
              }
            }
            if (!before && pos < searched.size()) exposed.push_back(lib.load.needed[k]);
          }
          const std::string what = e.tag + " entry " + e.raw + " names the folder of CUDA " + std::to_string(*fm) +
                                   " packages in a CUDA " + std::to_string(*claim) + " " + loading::package_noun(m);
          if (!exposed.empty())
            out.emit(lib.member, loc,
                     what + "; it is searched before the folder that finds " + loading::join_some(exposed, 3) +
                         ", and CUDA " + std::to_string(*fm) + "'s packages install files of that name, so the loader "
                         "takes the other major's build when it is installed",
                     "remove the entry (or list it after the CUDA " + std::to_string(*claim) + " folders)");
          else if (std::any_of(entries.begin(), entries.end(), [&](const loading::SearchEntry& x) {
                     auto xm = loading::folder_major(x.dir);
                     return xm && *xm == *claim && x.kind == loading::SearchEntry::Kind::origin && !x.escapes;
                   }) && could.empty())
            // Both majors' folders, nothing this one could take from the
            // other's (cuDNN's wheels list both layouts as fallbacks).
            out.note(lib.member, loc,
                     what + " beside its own major's folders; nothing the library NEEDs could be taken from it, so it is a "
                            "fallback for the other layout and changes nothing",
                     "remove the entry if the library is built for one major only");
          else
            out.warn(lib.member, loc,
                     what + (could.empty() ? std::string("; nothing the library NEEDs could be there, so today it "
                                                         "changes nothing, but a DT_NEEDED of a name both majors use "
                                                         "(libcusparse.so.12, libcurand.so.10) would be searched there")
                                           : "; with the declared CUDA " + std::to_string(*claim) +
                                                 " packages installed the loader finds " + loading::join_some(could, 3) +
                                                 " before it, so it changes nothing, but where only CUDA " +
                                                 std::to_string(*fm) + "'s packages are installed (or with the entry "
                                                 "listed first) it takes CUDA " + std::to_string(*fm) +
                                                 "'s build of them"),
                     "remove the entry");
          continue;
        }
        bool declared = false;
        std::vector<std::string> names;
        for (const auto& d : dists) {
          declared |= reqs.has(std::string(d.name));
          names.push_back(std::string(d.name));
        }
        if (declared) continue;
        undeclared_folders.push_back(e.raw);
        undeclared_harmless = undeclared_harmless && harmless(e);
        undeclared_dists.insert(names.begin(), names.end());
        continue;
      }
      std::string first = e.dir.substr(0, e.dir.find('/'));
      if (dep_folders.count(first)) continue;
      if (!wheel && !m.libraries.empty()) continue;  // installed environments: other distributions fill it
      const std::string what = e.tag + " entry " + e.raw + " resolves to " + (e.dir.empty() ? "site-packages itself" : e.dir) +
                               ", which neither the " + std::string(loading::package_noun(m)) + " nor a declared dependency provides";
      if (harmless(e))
        out.note(lib.member, loc,
                 what + "; the loader finds every DT_NEEDED before it or without a search, so it is dead weight",
                 "remove the entry");
      else if (wheel && inside_own(e.dir))
        out.note(lib.member, loc,
                 what + "; it lies inside the wheel's own " + e.dir.substr(0, e.dir.find('/')) +
                     " folder, where no other distribution installs files, so the loader searches it and never "
                     "finds anything there",
                 "remove the entry (a leftover of the build tree)");
      else
        out.warn(lib.member, loc,
                 what + "; the loader searches it before the entry that finds a DT_NEEDED, so a library of that name "
                        "that another distribution puts there would be loaded instead (a DT_NEEDED found nowhere is "
                        "unresolved-needed's error)",
                 "remove the entry, or ship/declare what it should find there");
    }
    // One finding per library for the entries that climb out of the tree.
    if (!escaping.empty() && escaping_harmless)
      out.note(lib.member, (lib.load.runpath.empty() ? "DT_RPATH " : "DT_RUNPATH ") + escaping.front(),
               std::to_string(escaping.size()) + " search-path entr" + (escaping.size() == 1 ? "y climbs" : "ies climb") +
                   " above site-packages from " + (dir.empty() ? "the root" : dir) + " (" + loading::join_some(escaping, 3) +
                   "), but the loader finds every DT_NEEDED before them or without a search",
               "count the '..' from the library's own folder, or remove the entries");
    else if (!escaping.empty())
      out.warn(lib.member, (lib.load.runpath.empty() ? "DT_RPATH " : "DT_RUNPATH ") + escaping.front(),
               std::to_string(escaping.size()) + " search-path entr" + (escaping.size() == 1 ? "y climbs" : "ies climb") +
                   " above site-packages from " + (dir.empty() ? "the root" : dir) +
                   " and can only find files outside the install tree: " + loading::join_some(escaping, 3) +
                   "; on a normal install that is the interpreter's own folder, where no package installs libraries, "
                   "so the loader searches them and finds nothing, but it does search them first",
               "count the '..' from the library's own folder: " + dir + " is " +
                   std::to_string(dir.empty() ? 0 : std::count(dir.begin(), dir.end(), '/') + 1) +
                   " level(s) below site-packages");
    // One finding per library for NVIDIA folders of undeclared packages.
    if (!undeclared_folders.empty() && undeclared_harmless)
      out.warn(lib.member, (lib.load.runpath.empty() ? "DT_RPATH " : "DT_RUNPATH ") + undeclared_folders.front(),
               std::to_string(undeclared_folders.size()) + " search-path entr" +
                   (undeclared_folders.size() == 1 ? "y names the folder" : "ies name the folders") + " of NVIDIA packages (" +
                   loading::join_some(std::vector<std::string>(undeclared_dists.begin(), undeclared_dists.end()), 3) +
                   ") that Requires-Dist does not declare: " + loading::join_some(undeclared_folders, 3) +
                   "; no DT_NEEDED is searched there (every one is found before them or without a search), so they "
                   "serve only what the library opens with dlopen, which works once something else installs those "
                   "packages (a framework's extra)",
               "declare the packages, behind an extra if they are optional, so that pip can install them");
    else if (!undeclared_folders.empty())
      out.emit(lib.member, (lib.load.runpath.empty() ? "DT_RPATH " : "DT_RUNPATH ") + undeclared_folders.front(),
               std::to_string(undeclared_folders.size()) + " search-path entr" +
                   (undeclared_folders.size() == 1 ? "y names the folder" : "ies name the folders") + " of NVIDIA packages (" +
                   loading::join_some(std::vector<std::string>(undeclared_dists.begin(), undeclared_dists.end()), 3) +
                   ") that Requires-Dist does not declare: " + loading::join_some(undeclared_folders, 3),
               "declare the packages whose libraries these folders should provide (or remove the entries)");
  }
}

}  // namespace cuwheel::check::rule_impl
