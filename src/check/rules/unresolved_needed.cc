// unresolved-needed: a DT_NEEDED library that nothing provides. A name is
// provided when it is the system baseline or the driver (libclass: system,
// nvidia_driver; libcuda.so.1 comes from the installed driver), or when a
// search-path entry of the library (DT_RUNPATH, else DT_RPATH) resolves to a
// folder that holds it: a folder of the wheel with a member of that file name
// or DT_SONAME, or the folder of an NVIDIA package that installs it (the
// per-major layout: libnccl.so.2 lives in nvidia/nccl/lib, not in
// nvidia/cu13/lib). Whether that package is declared is
// undeclared-dependency's question. One finding per unresolved name (the
// first library that needs it, and how many others). Field reports 7 and 8.
#include <fnmatch.h>

#include <map>

#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {
bool nvidia_folder_has(const std::string& dir, const std::string& name) {
  for (const auto& d : loading::distributions_in(dir))
    for (auto s : d.sonames)
      if (fnmatch(std::string(s).c_str(), name.c_str(), 0) == 0) return true;
  auto c = classify_soname(name);
  if (c.kind != LibraryKind::cuda_toolkit) return false;
  for (int major : {12, 13}) {
    const Provision* p = c.provision(major);
    if (p && p->directory == dir && (c.majors.empty() || c.majors.contains(major))) return true;
  }
  return false;
}
}  // namespace

void unresolved_needed(const Context& ctx, Emitter& out) {
  const auto& m = ctx.model;
  if (m.kind != CheckModel::Kind::wheel) return;
  auto tree = loading::build_tree(m);
  struct Agg {
    std::string member, msg, hint;
    size_t libs = 0;
  };
  std::map<std::string, Agg> agg;
  for (const auto& lib : m.libraries) {
    if (!loading::loadable(lib) || lib.member.empty()) continue;
    auto where = loading::install_path(lib.member);
    if (!where) continue;
    std::string dir = loading::dir_of(*where);
    auto entries = loading::search_entries(lib, dir);
    for (const auto& n : lib.load.needed) {
      auto c = classify_soname(n);
      if (c.kind == LibraryKind::system || c.kind == LibraryKind::nvidia_driver) continue;
      if (n.find('/') != std::string::npos) continue;  // a path: loaded as written
      bool found = false;
      for (const auto& e : entries) {
        if (e.kind != loading::SearchEntry::Kind::origin || e.escapes) continue;
        if (tree.has_file(e.dir, n) || nvidia_folder_has(e.dir, n)) {
          found = true;
          break;
        }
      }
      if (found) continue;
      std::string elsewhere;
      for (const auto& [d, names] : tree.files)
        if (names.count(n)) {
          elsewhere = d.empty() ? "." : d;
          break;
        }
      std::string path_text;
      for (const auto& e : entries) path_text += (path_text.empty() ? "" : ":") + e.raw;
      std::string tag = lib.load.runpath.empty() ? "DT_RPATH" : "DT_RUNPATH";
      std::string msg = "DT_NEEDED " + n + " is not found through " +
                        (entries.empty() ? std::string("any RPATH/RUNPATH (the library has none)")
                                         : tag + " " + path_text);
      std::string hint;
      if (!elsewhere.empty()) {
        msg += "; the wheel ships it in " + elsewhere;
        hint = "add $ORIGIN/<relative path to " + elsewhere + "> to the RUNPATH";
      } else if (c.kind == LibraryKind::cuda_toolkit) {
        std::map<std::string, std::string> dirs;  // folder -> distributions
        for (int major : {12, 13})
          if (const Provision* p = c.provision(major); p && (c.majors.empty() || c.majors.contains(major))) {
            auto& d = dirs[std::string(p->directory)];
            d += (d.empty() ? "" : " or ") + std::string(p->distribution);
          }
        std::string text;
        for (const auto& [d, names] : dirs) text += (text.empty() ? "" : ", or ") + d + " (" + names + ")";
        hint = text.empty() ? "declare the package that provides it and add its folder to the RUNPATH"
                            : "add the folder " + text + " to the RUNPATH as $ORIGIN/<../ up to site-packages>/<folder>, "
                              "and declare the package";
      } else {
        hint = "ship the library in the wheel (and reach it through $ORIGIN) or depend on a package that provides it";
      }
      auto& a = agg[n];
      if (a.libs++ == 0) {
        a.member = lib.member;
        a.msg = msg;
        a.hint = hint;
      }
    }
  }
  // One finding per name: the first library's details, and how many others.
  for (const auto& [n, a] : agg)
    out.emit(a.member, "DT_NEEDED " + n,
             a.msg + (a.libs > 1 ? " (and in " + std::to_string(a.libs - 1) + " other librar" +
                                       (a.libs == 2 ? "y" : "ies") + " of the wheel)"
                                 : ""),
             a.hint);
}

}  // namespace cuwheel::check::rule_impl
