// unresolved-runpath: a relative DT_RPATH/DT_RUNPATH entry that leaves the
// install tree (more `..` than the library's depth below site-packages), that
// is relative to the working directory (no $ORIGIN), or that names a
// directory which neither the wheel (a member under it) nor a declared
// dependency provides. NVIDIA folders come from libclass per CUDA major; a
// dependency counts when Requires-Dist names it, directly, through
// cuda-toolkit[extra], or behind an extra. Other dependencies' folders are
// recognised by their import name (the first path part equals a
// Requires-Dist name with '-' as '_', e.g. torch/lib).
#include <algorithm>
#include <set>

#include "cuwheel/pep508.h"
#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

void unresolved_runpath(const Context& ctx, Emitter& out) {
  const auto& m = ctx.model;
  if (m.kind == CheckModel::Kind::library) return;  // a lone file has no install tree
  const bool wheel = m.kind == CheckModel::Kind::wheel;
  auto tree = loading::build_tree(m);
  auto reqs = loading::read_requirements(m);
  std::set<std::string> dep_folders;  // import-name guesses of every Requires-Dist entry
  if (m.metadata)
    for (const auto& text : m.metadata->requires_dist)
      if (auto r = Requirement::parse(text)) {
        std::string n = r->normalized_name();
        for (auto& c : n)
          if (c == '-') c = '_';
        dep_folders.insert(n);
      }
  for (const auto& lib : m.libraries) {
    if (!loading::loadable(lib) || lib.member.empty()) continue;
    auto where = loading::install_path(lib.member);
    if (!where) continue;
    std::string dir = loading::dir_of(*where);
    std::set<std::string> seen;
    for (const auto& e : loading::all_entries(lib, dir)) {
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
      if (e.escapes) {
        out.emit(lib.member, loc,
                 e.tag + " entry " + e.raw + " climbs above site-packages from " + (dir.empty() ? "the root" : dir) +
                     "; it can only find files outside the install tree",
                 "count the '..' from the library's own folder: " + dir + " is " +
                     std::to_string(dir.empty() ? 0 : std::count(dir.begin(), dir.end(), '/') + 1) +
                     " level(s) below site-packages");
        continue;
      }
      if (tree.provides_dir(e.dir)) continue;
      auto dists = loading::distributions_in(e.dir);
      if (!dists.empty()) {
        if (!wheel) continue;
        bool declared = false;
        std::vector<std::string> names;
        for (const auto& d : dists) {
          declared |= reqs.has(std::string(d.name));
          names.push_back(std::string(d.name));
        }
        if (declared) continue;
        out.emit(lib.member, loc,
                 e.tag + " entry " + e.raw + " is the folder of " + loading::join_some(names, 3) +
                     ", which Requires-Dist does not declare",
                 "declare the package whose libraries this folder should provide (or remove the entry)");
        continue;
      }
      std::string first = e.dir.substr(0, e.dir.find('/'));
      if (dep_folders.count(first)) continue;
      if (!wheel && !m.libraries.empty()) continue;  // installed environments: other distributions fill it
      out.emit(lib.member, loc,
               e.tag + " entry " + e.raw + " resolves to " + (e.dir.empty() ? "site-packages itself" : e.dir) +
                   ", which neither the wheel nor a declared dependency provides",
               "remove the entry, or ship/declare what it should find there");
    }
  }
}

}  // namespace cuwheel::check::rule_impl
