// unresolved-needed: a DT_NEEDED library that nothing provides, in the
// loader's order (model/loading.h: resolve_loads()). A name is provided
// when it is the system baseline or the driver (libclass: system,
// nvidia_driver; libcuda.so.1 comes from the installed driver); when a
// search-path entry of the library (DT_RUNPATH, else DT_RPATH and the
// DT_RPATH of the libraries that load it) resolves to a folder that holds
// it: a folder of the wheel with a member of that file name or DT_SONAME,
// or the folder of an NVIDIA package that installs it (the per-major
// layout: libnccl.so.2 lives in nvidia/nccl/lib, not in nvidia/cu13/lib);
// or when a library of the wheel with that name is mapped earlier in the
// same load. Whether that package is declared is
// undeclared-dependency's question. One finding per unresolved name (the
// first library that needs it, and how many others). Field reports 7 and 8.
#include <map>

#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

void unresolved_needed(const Context& ctx, Emitter& out) {
  const auto& m = ctx.model;
  if (m.kind != CheckModel::Kind::wheel) return;
  auto tree = loading::build_tree(m);
  const model::LoadResolution loads = model::resolve_loads(m, tree);
  struct Agg {
    std::string member, msg, hint;
    size_t libs = 0;
  };
  std::map<std::string, Agg> agg;
  for (size_t li = 0; li < m.libraries.size(); ++li) {
    const LibraryModel& lib = m.libraries[li];
    if (loads.needed[li].empty()) continue;  // not loadable, or no install path
    auto where = loading::install_path(lib.member);
    std::string dir = loading::dir_of(*where);
    auto entries = loading::search_entries(lib, dir);
    for (size_t k = 0; k < lib.load.needed.size(); ++k) {
      // Found by the loader's order (model/loading.h): the library's own
      // search entries, the DT_RPATH of its loaders, a library already
      // mapped; the system's and the driver's names are not searched.
      if (loads.needed[li][k].how != model::NeededResolution::How::unresolved) continue;
      const std::string& n = lib.load.needed[k];
      auto c = classify_soname(n);
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
